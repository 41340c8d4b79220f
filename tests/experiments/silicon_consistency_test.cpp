// The real-silicon physical-consistency check (experiments/validate/silicon_consistency.hpp)
// against bounds worked by hand on a tiny profile: 1 ms per step, 1 us per dense token, 0.5 ns per
// attention pair, nothing else; and `validate --silicon` printing and writing the flag per case and
// the count per group.
#include "experiments/validate/silicon_consistency.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "profiles/profile_io.hpp"
#include "silicon_test_header.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {

const std::string kSource = SPARKSIM_SOURCE_DIR;

// The golden 10 ms profile with its verify model replaced by the tiny one above.
std::filesystem::path tiny_profile(const std::filesystem::path& dir) {
  std::ifstream in(kSource + "/tests/experiments/golden/two_requests/profile.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string old_verify =
      "\"fixed_us\": 10000,\n    \"graph_buckets\": [],\n    \"dense_tokens\": [1, 100000],\n"
      "    \"dense_us\": [0, 0],\n    \"kv_read_ns_per_context_token\": 0,\n"
      "    \"attention_ns_per_pair\": 0";
  const std::size_t at = text.find(old_verify);
  REQUIRE(at != std::string::npos);
  text.replace(at, old_verify.size(),
               "\"fixed_us\": 1000, \"graph_buckets\": [], \"dense_tokens\": [1, 100000], "
               "\"dense_us\": [1, 100000], \"kv_read_ns_per_context_token\": 0, "
               "\"attention_ns_per_pair\": 0.5");
  std::filesystem::create_directories(dir / "profiles/h100-sxm");
  const auto path = dir / "profiles/h100-sxm/qwen3-32b-tp2.json";
  std::ofstream(path) << text;
  return path;
}

SiliconRow row(std::int64_t users, std::int64_t isl, std::int64_t osl, double ttft_ms,
               double tpot_ms) {
  SiliconRow r;
  r.batch_size = users;
  r.isl = isl;
  r.osl = osl;
  r.ttft_ms = ttft_ms;
  r.tpot_ms = tpot_ms;
  return r;
}

}  // namespace

TEST_CASE("silicon consistency: implied rates against the profile's fastest steps, by hand") {
  const auto dir = scratch_dir("silicon_consistency");
  const TimeModel model(load_profile(tiny_profile(dir).string()));

  // 8 users, 4000/11 tokens, TTFT 20 ms, TPOT 10 ms: each request takes 20 + 10 x 10 = 120 ms, so
  // 8 / 0.12 = 66.67 requests/s, 266,667 prompt and 733.3 output tokens/s.
  // Pure prefill step of 8192 tokens: 1000 us + 8192 us dense + 8192 x 4001 / 2 = 16,388,096
  // pairs x 0.5 ns = 8194.048 us; 17,386.048 us, 8192 / 17.386048 ms = 471,182.4 tokens/s.
  // Pure decode step of 8 at context 4001: 1000 + 8 + 8 x 4001 x 0.5 ns = 1024.004 us,
  // 8 / 1.024004 ms = 7812.47 tokens/s.
  const SiliconConsistency a = silicon_consistency(row(8, 4000, 11, 20, 10), model, 8192);
  CHECK(a.request_rate_per_s == Approx(8 / 0.12));
  CHECK(a.prefill_tokens_per_s == Approx(8 / 0.12 * 4000));
  CHECK(a.decode_tokens_per_s == Approx(8 / 0.12 * 11));
  CHECK(a.chunk_tokens == 8192);
  CHECK(a.chunk_step_ms == Approx(17.386048));
  CHECK(a.max_prefill_tokens_per_s == Approx(471182.41));
  CHECK(a.decode_step_ms == Approx(1.024004));
  CHECK(a.max_decode_tokens_per_s == Approx(7812.4695));
  CHECK(a.prefill_load == Approx(0.565952));
  CHECK(a.decode_load == Approx(0.093867));
  CHECK_FALSE(a.prefill_exceeds_profile());
  CHECK_FALSE(a.decode_exceeds_profile());

  // 32 users, 4000/2, TTFT 100 ms, TPOT 10 ms: 32 / 0.11 s = 290.9 requests/s, 1,163,636 prompt
  // tokens/s: 2.47 x what a pure prefill step can do. Decode of 32 at 4001: 1000 + 32 + 64.016 us.
  const SiliconConsistency b = silicon_consistency(row(32, 4000, 2, 100, 10), model, 8192);
  CHECK(b.prefill_load == Approx(32 / 0.11 * 4000 / 471182.41));
  CHECK(b.prefill_load == Approx(2.469609));
  CHECK(b.decode_step_ms == Approx(1.096016));
  CHECK(b.prefill_exceeds_profile());
  CHECK_FALSE(b.decode_exceeds_profile());

  // 8 users, 4000/1001, TTFT 10 ms, TPOT 0.5 ms: 8 / 0.51 s x 1001 = 15,702 output tokens/s,
  // 2.01 x the 7812.47 a pure decode step of all 8 gives.
  const SiliconConsistency c = silicon_consistency(row(8, 4000, 1001, 10, 0.5), model, 8192);
  CHECK(c.decode_load == Approx(8 / 0.51 * 1001 / 7812.4695));
  CHECK(c.decode_exceeds_profile());
  CHECK_FALSE(c.prefill_exceeds_profile());
}

TEST_CASE("silicon consistency: validate --silicon flags the case and counts it per group") {
  const auto dir = scratch_dir("silicon_consistency_cli");
  tiny_profile(dir);
  const auto line = [](const char* id, const char* users, const char* osl, const char* ttft,
                       const char* tpot) {
    // isl, osl, two empty quant modes, batch_size, tp 2, pp 1, three more 1s, 14 empty cells.
    return std::string(id) + ",src,vllm,0.12.0,Qwen/Qwen3-32B,h100_sxm,,agg,4000," + osl + ",,," +
           users + ",2,1,1,1,1" + std::string(15, ',') + ttft + "," + tpot + "\n";
  };
  std::ofstream(dir / "s.csv") << kSiliconHeader << line("fine", "8", "11", "20", "10")
                               << line("over", "32", "2", "100", "10");
  const auto r = run_cli("validate --silicon " + (dir / "s.csv").string() + " --silicon-profiles " +
                             (dir / "profiles").string() + " --json " + (dir / "s.json").string(),
                         dir);
  REQUIRE(r.exit_code == 0);
  // The per-group table names both count columns its rows print (1 and 0 here).
  CHECK_THAT(r.output, Catch::Contains("TPOT bias  pf>max  dc>max\n"));
  CHECK_THAT(r.output, Catch::Contains("       1       0\n"));
  const auto j = read_json(dir / "s.json");
  CHECK(j["cases"][0]["consistency"]["prefill_exceeds_profile"] == false);
  CHECK(j["cases"][1]["consistency"]["prefill_exceeds_profile"] == true);
  CHECK(j["cases"][1]["consistency"]["prefill_load"].get<double>() == Approx(2.469609));
  CHECK(j["groups"][0]["prefill_exceeds_profile_cases"] == 1);
  CHECK(j["groups"][0]["decode_exceeds_profile_cases"] == 0);
}
