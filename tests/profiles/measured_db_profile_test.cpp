// The measured-db profile generator: provenance and label name the database, its commit and the
// framework; the fit meets the fidelity target on held-out points; the committed profiles are
// what the generator makes; the loader demands a database on measured-db profiles; step-time's
// breakdown adds up to the step time.
#include "profiles/step_composition/measured_db_profile.hpp"

#include <cmath>
#include <filesystem>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/time_model.hpp"
#include "tests/profiles/profile_fixture.hpp"

namespace sparksim {
namespace {

const std::string kSource = SPARKSIM_SOURCE_DIR;

const MeasuredDbBuild& h100_qwen3_8b() {
  static const MeasuredDbBuild build = make_measured_db_profile(
      kSource + "/profiles/data/aic", JsonFile::load(kSource + "/profiles/model_shapes.json"),
      "h100-sxm", "qwen3-8b", "2026-11-25", "test");
  return build;
}

TEST_CASE("measured-db profile: provenance and label say who measured what") {
  const Profile& p = h100_qwen3_8b().profile;
  CHECK(p.provenance.source == "measured-db");
  CHECK_FALSE(p.is_analytic());
  CHECK(p.is_measured_db());
  CHECK(p.provenance.database == "ai-dynamo/aiconfigurator");
  CHECK(p.provenance.database_commit == "095f58a51c4ca8e61b66ec108d86f223f8d559ce");
  CHECK(p.provenance.framework == "vLLM 0.24.0");
  const std::string label = p.label();
  CHECK(label.find("MEASURED-DB profile for h100-sxm / qwen3-8b") == 0);
  CHECK(label.find("ai-dynamo/aiconfigurator@095f58a51c4c") != std::string::npos);
  CHECK(label.find("vLLM 0.24.0") != std::string::npos);
  CHECK(label.find("not measured by us") != std::string::npos);
  // The LM head (n = 151936 above the grid's 65536) is always extrapolated, and named.
  bool head_named = false;
  for (const std::string& s : p.provenance.outside_grid) {
    head_named |= s.find("n above the largest measured n=65536") != std::string::npos;
  }
  CHECK(head_named);
}

// Target (issue 17): held-out MAPE <= 3% in every region (profiles/README.md's table).
TEST_CASE("measured-db profile: held-out error within the 3% target in every region") {
  const MeasuredDbBuild& b = h100_qwen3_8b();
  CHECK(b.verify_held_out.overall.points > 50);
  CHECK(b.verify_held_out.overall.mean_abs_pct <= 3.0);
  REQUIRE(b.verify_held_out.regions.size() == 4);
  for (const RegionError& e : b.verify_held_out.regions) {
    INFO(e.region);
    CHECK(e.mean_abs_pct <= 3.0);
    CHECK(std::abs(e.worst_signed_pct) <= 10.0);
  }
  for (const FitErrorReport& d : b.draft_held_out) CHECK(d.overall.mean_abs_pct <= 9.0);
}

TEST_CASE("measured-db profile: the committed H100 Qwen3-8B file is what the generator makes") {
  const std::string path = kSource + "/profiles/measured-db/h100-sxm/qwen3-8b.json";
  const Profile committed = load_profile(path);
  Profile made = h100_qwen3_8b().profile;
  made.provenance.date = committed.provenance.date;
  made.provenance.git_sha = committed.provenance.git_sha;
  made.path = committed.path;
  CHECK(format_profile(made) == format_profile(committed));
}

TEST_CASE("measured-db profile: round trip, and the loader demands the database's name") {
  const Profile& p = h100_qwen3_8b().profile;
  const auto dir = testing::fresh_dir("measured_db");
  write_profile(p, (dir / "p.json").string());
  const Profile back = load_profile((dir / "p.json").string());
  CHECK(format_profile(back) == format_profile(p));
  CHECK(back.verify.head_tokens == p.verify.head_tokens);
  std::string text = format_profile(p);
  const std::size_t at = text.find("\"database\":");
  REQUIRE(at != std::string::npos);
  text.replace(at, 11, "\"databank\":");
  const std::string bad = (dir / "bad.json").string();
  write_file_atomically(bad, text);
  const std::string e = testing::error_of([&] { load_profile(bad); });
  CHECK(e.find(bad + ":") == 0);
  CHECK(e.find("databank") != std::string::npos);
}

TEST_CASE("verify_terms adds up to verify_time") {
  const TimeModel model(h100_qwen3_8b().profile);
  BatchShape b;
  b.decode_requests = 32;
  b.verify_tokens = 96;
  b.decode_context_tokens = 32 * 4096;
  b.verify_attention_pairs = 96 * 4096;
  b.prefill_tokens = 512;
  b.prefill_attention_pairs = 512 * 256;
  const VerifyTerms t = model.verify_terms(b);
  CHECK(t.padded_tokens == 608);  // eager above the largest bucket, 512
  CHECK(t.head_rows == 97);
  CHECK(t.total_us() * 1e3 == Approx(static_cast<double>(model.verify_time(b))).margin(1.0));
}

}  // namespace
}  // namespace sparksim
