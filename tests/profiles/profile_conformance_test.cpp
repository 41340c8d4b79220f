// Conformance over every committed profile (every *.json under profiles/ whose schema is a
// profile's), the way tests/policies checks every policy: verify_terms adds up to verify_time on a
// grid of batch shapes, the stored SPS tables equal a fresh build_sps_tables() from the profile's
// own verify model at the one reference shape, finishing a finished profile again changes
// nothing, label and provenance are present, and load -> write -> load round-trips (the
// file on disk being exactly what the writer writes). The term sum is first checked on a
// hand-worked shape, so the grid's oracle is not the code itself.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "profile_fixture.hpp"
#include "profiles/profile_finishing.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/sps_belief.hpp"
#include "profiles/step_composition/fidelity_points.hpp"
#include "profiles/time_model.hpp"

using namespace sparksim;

namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every committed profile, relative to the source tree (sorted, so failures read the same).
std::vector<std::string> committed_profiles() {
  const std::filesystem::path root = std::filesystem::path(SPARKSIM_SOURCE_DIR) / "profiles";
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    const auto j = nlohmann::json::parse(read_text(e.path()), nullptr, /*allow_exceptions=*/false);
    // Other data under profiles/ (kernel databases, model shapes, fitted constants, telemetry
    // curves) has no profile schema.
    if (j.is_object() && j.value("schema", "") == kProfileSchema) {
      out.push_back(std::filesystem::relative(e.path(), SPARKSIM_SOURCE_DIR).string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Profile load_committed(const std::string& rel) {
  return load_profile(std::string(SPARKSIM_SOURCE_DIR) + "/" + rel);
}

// Points equal: same B and the same SPS at each, exactly (a file stores doubles to the last bit).
bool same_points(const SpsPoints& a, const SpsPoints& b, std::string& why) {
  if (a.tokens != b.tokens) {
    why = "token points differ (" + std::to_string(a.tokens.size()) + " stored vs " +
          std::to_string(b.tokens.size()) + " rebuilt)";
    return false;
  }
  for (std::size_t i = 0; i < a.tokens.size(); ++i) {
    if (a.steps_per_s[i] != b.steps_per_s[i]) {
      std::ostringstream s;
      s.precision(17);
      s << "SPS(" << a.tokens[i] << ") stored " << a.steps_per_s[i] << " vs rebuilt "
        << b.steps_per_s[i];
      why = s.str();
      return false;
    }
  }
  return true;
}

// The shapes every profile's tables are built at: the one reference shape (whatever the profile
// kind), and the capture shape the stored capture table says (256 requests of B / 256 tokens).
SpsTableShapes expected_shapes(const Profile& p) {
  SpsTableShapes s;
  s.reference = kSpsReferenceShape;
  s.capture.verify_tokens_per_request = p.sps_capture.tokens.back() / s.capture.max_requests;
  return s;
}

}  // namespace

TEST_CASE("verify_terms names every term of verify_time: a hand-worked shape") {
  // The fixture (fixed 10 us; buckets 1, 2, 4, 8; dense 100, 130, 170, 250 us at 1, 4, 8, 16
  // tokens; KV 2 ns per context token; 0.5 ns per pair) plus every optional term, set in memory
  // with no step_terms section marked present: each applies by its own value.
  Profile p = testing::fixture_profile();
  p.verify.per_request_us = 1;
  p.verify.prefill_chunk_us = 5;
  p.verify.prefill_attention_ns_per_pair = 0.25;
  p.verify.head_tokens = {1, 16};
  p.verify.head_us = {20, 50};
  p.step_terms.per_step_us = 40;
  p.step_terms.per_sequence_us = 3;
  REQUIRE_FALSE(p.step_terms.present);
  BatchShape s;
  s.decode_requests = 2;
  s.verify_tokens = 4;
  s.decode_context_tokens = 1000;
  s.verify_attention_pairs = 2000;
  s.prefill_tokens = 8;
  s.prefill_attention_pairs = 400;
  const TimeModel m(p);
  const VerifyTerms t = m.verify_terms(s);
  CHECK(t.padded_tokens == 12);  // past the largest bucket: eager, no padding
  CHECK(t.fixed_us == 10);
  CHECK(t.dense_us == 210);            // 170 + (250 - 170) / 8 x 4
  CHECK(t.head_rows == 5);             // 4 verified rows + the chunk's next token
  CHECK(t.head_us == 28);              // 20 + 30 / 15 x 4
  CHECK(t.per_request_us == 2);        // 1 x 2 requests
  CHECK(t.kv_read_us == Approx(2));    // 2 ns x 1000
  CHECK(t.attention_us == Approx(1));  // 0.5 ns x 2000
  CHECK(t.prefill_chunk_us == 5);
  CHECK(t.prefill_attention_us == Approx(0.1));  // 0.25 ns x 400: its own rate
  CHECK(t.prefill_token_us == 0);
  CHECK(t.decode_attention_us == 0);
  CHECK(t.per_step_us == 40);
  CHECK(t.per_sequence_us == 6);  // 3 x 2 requests
  // 10 + 210 + 28 + 2 + 2 + 1 + 5 + 0.1 + 40 + 6 = 304.1 us.
  CHECK(m.verify_time(s) == 304'100);
  CHECK(std::llround(t.total_us() * 1e3) == 304'100);

  SECTION("without a prefill pair rate, prefill pairs cost the verify pairs' rate") {
    p.verify.prefill_attention_ns_per_pair.reset();
    const TimeModel plain(p);
    CHECK(plain.verify_terms(s).prefill_attention_us == Approx(0.2));  // 0.5 ns x 400
    CHECK(plain.verify_time(s) == 304'200);
  }
}

TEST_CASE("the committed profiles are found") {
  const auto all = committed_profiles();
  // The analytic, calibrated, measured-db, MoE and telemetry families are all there.
  CHECK(all.size() >= 20);
  for (const char* family : {"profiles/analytic/", "profiles/calibrated/", "profiles/measured-db/",
                             "profiles/moe-analytic/", "profiles/telemetry/"}) {
    INFO(family);
    CHECK(std::any_of(all.begin(), all.end(),
                      [&](const std::string& f) { return f.rfind(family, 0) == 0; }));
  }
}

TEST_CASE("every committed profile: the terms add up to verify_time on a grid of shapes") {
  for (const std::string& file : committed_profiles()) {
    const Profile p = load_committed(file);
    const TimeModel m(p);
    for (std::int64_t r : {0, 1, 3, 17, 64, 256}) {
      for (std::int64_t w : {1, 4, 8}) {
        for (std::int64_t ctx : {0, 1, 500, 4096, 32768}) {
          for (std::int64_t prefill : {0, 1, 100, 2048, 8192}) {
            for (std::int64_t cached : {0, 1000}) {
              if (r == 0 && prefill == 0) continue;
              if (prefill == 0 && cached > 0) continue;
              const BatchShape b = batch_shape_of(StepShape{r, w, ctx, prefill, cached});
              const VerifyTerms t = m.verify_terms(b);
              const SimTime total = m.verify_time(b);
              INFO(file << ": R " << r << " W " << w << " L " << ctx << " N " << prefill << " P "
                        << cached);
              CHECK(std::fabs(t.total_us() * 1e3 - static_cast<double>(total)) <= 1e4);
              // Exact after rounding, but for a sum lying within float error of a half
              // nanosecond, which the two summation orders may round apart (the analytic
              // profiles' few-decimal coefficients land there in a few percent of shapes).
              CHECK(std::llabs(std::llround(t.total_us() * 1e3) - total) <= 1);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("every committed profile: stored SPS tables equal a fresh build_sps_tables()") {
  for (const std::string& file : committed_profiles()) {
    const Profile p = load_committed(file);
    const SpsTableShapes shapes = expected_shapes(p);
    const SpsTables fresh = build_sps_tables(p, shapes);
    std::string why_ref, why_cap;
    const bool ref_same = same_points(p.sps, fresh.reference, why_ref);
    const bool cap_same = same_points(p.sps_capture, fresh.capture, why_cap);
    INFO(file << ": reference: " << (ref_same ? "same" : why_ref)
              << "; capture: " << (cap_same ? "same" : why_cap));
    CHECK(ref_same);
    CHECK(cap_same);
    // The reference table runs to the one shape's last B, and its text records that shape.
    CHECK(p.sps.tokens.back() == kSpsReferenceShape.max_tokens);
    CHECK(p.sps.reference == p.provenance.source + " " + fresh.reference.reference);
  }
}

TEST_CASE("every committed profile is what the finishing step makes of it") {
  // finish_profile() is idempotent on a finished profile: its terms are already rounded as stored,
  // and its tables and texts are what the one finishing step builds. A hand-finished profile
  // (tables from elsewhere, a term with more decimals than stored) would fail here.
  for (const std::string& file : committed_profiles()) {
    const Profile p = load_committed(file);
    INFO(file);
    CHECK(format_profile(finish_profile(draft_of(p))) == format_profile(p));
  }
}

TEST_CASE("every committed profile: label and provenance present") {
  for (const std::string& file : committed_profiles()) {
    const Profile p = load_committed(file);
    INFO(file);
    CHECK(!p.provenance.source.empty());
    CHECK(!p.provenance.gpu.empty());
    CHECK(!p.provenance.date.empty());
    CHECK(!p.provenance.tool.empty());
    const std::string label = p.label();
    CHECK(label.find(p.target) != std::string::npos);
    CHECK(label.find(p.provenance.gpu) != std::string::npos);
    CHECK(!p.sps.reference.empty());
    CHECK(!p.sps_capture.reference.empty());
  }
}

TEST_CASE("every committed profile: load -> write -> load round-trips") {
  const auto dir = testing::fresh_dir("conformance_round_trip");
  for (const std::string& file : committed_profiles()) {
    const Profile p = load_committed(file);
    INFO(file);
    const std::string copy = (dir / "p.json").string();
    write_profile(p, copy);
    const Profile again = load_profile(copy);
    CHECK(profile_to_json(again) == profile_to_json(p));
    CHECK(format_profile(again) == format_profile(p));
    // The committed file is what the writer writes: regenerating it changes only what changed.
    CHECK(format_profile(p) == read_text(std::string(SPARKSIM_SOURCE_DIR) + "/" + file));
  }
}
