// Absurd values through the real binary: each is refused before any simulation with one clear
// message and exit code 2, and leaves no output directory.
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/experiments/cli_harness.hpp"

namespace sparksim::testing {
namespace {

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_CASE("absurd values are refused once each with exit code 2 and no output", "[cli][limits]") {
  const auto dir = scratch_dir("absurd_input");
  // A "zero bandwidth" profile: reading one cached token takes 1e300 ns.
  auto profile = nlohmann::json::parse(std::ifstream(std::string(SPARKSIM_SOURCE_DIR) +
                                                     "/profiles/analytic/h100-sxm/qwen3-8b.json"));
  profile["verify"]["kv_read_ns_per_context_token"] = 1e300;
  const auto bad_profile = dir / "zero_bandwidth.json";
  std::ofstream(bad_profile) << profile.dump(1);

  const std::string good_profile = "profiles/analytic/h100-sxm/qwen3-8b.json";
  const std::string traffic = "rate=1,prompt=fixed:10,output=fixed:10,duration_s=10";
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--profile '" + bad_profile.string() + "' --synthetic " + traffic,
       "verify.kv_read_ns_per_context_token is 1e+300"},
      {"--profile " + good_profile + " --synthetic rate=1e12,prompt=fixed:10,output=fixed:10",
       "expected requests"},
      {"--profile " + good_profile +
           " --synthetic rate=1,prompt=fixed:1000000000,output=fixed:10,duration_s=10",
       "must be in [1, 100000000]"},
      {"--profile " + good_profile + " --synthetic " + traffic + " --drafter dspark-1000000",
       "bad block size"},
      {"--profile " + good_profile + " --synthetic " + traffic + " --rate-scale 1e-12",
       "the simulator's time limit"},
  };
  for (const Case& c : cases) {
    const auto out = dir / "out";
    const CliResult r = run_cli("run " + c.args + " --quiet --out '" + out.string() + "'", dir);
    INFO(c.args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(occurrences(r.output, c.message) == 1);
    CHECK_FALSE(std::filesystem::exists(out));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sparksim::testing
