// The analytic roofline generator: the committed profiles under profiles/analytic/ must equal a
// fresh regeneration (drift guard: change the model, regenerate the files in the same change),
// and the model must pass hand-checkable sanity tests (weights, KV, B = 1 weight streaming,
// monotone SPS with the CUDA-graph staircase, the Markov-loop cost cited from the DSpark paper).
#include "profiles/analytic_profile.hpp"

#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "profiles/profile_io.hpp"
#include "profiles/time_model.hpp"
#include "tests/profiles/profile_fixture.hpp"

namespace sparksim {
namespace {

const std::string kSourceDir = SPARKSIM_SOURCE_DIR;
const std::string kShapesPath = kSourceDir + "/profiles/model_shapes.json";

const JsonFile& shapes() {
  static const JsonFile file = JsonFile::load(kShapesPath);
  return file;
}

Profile generate(const std::string& gpu, const std::string& target) {
  return make_analytic_profile(shapes(), gpu, target, "2025-01-01", "test");
}

// First JSON pointer where `a` and `b` differ ("" if none); numbers within 1e-9 relative.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b,
                             const std::string& at = "") {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>();
    const double y = b.get<double>();
    return std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y)) ? "" : at;
  }
  if (a.type() != b.type() || a.size() != b.size()) return at.empty() ? "/" : at;
  if (a.is_object()) {
    for (const auto& [key, value] : a.items()) {
      if (!b.contains(key)) return at + "/" + key;
      const std::string d = first_difference(value, b.at(key), at + "/" + key);
      if (!d.empty()) return d;
    }
    return "";
  }
  if (a.is_array()) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string d = first_difference(a[i], b[i], at + "/" + std::to_string(i));
      if (!d.empty()) return d;
    }
    return "";
  }
  return a == b ? "" : (at.empty() ? "/" : at);
}

using testing::tokens_only;

TEST_CASE("committed analytic profiles equal a fresh regeneration") {
  for (const char* gpu : {"h100-sxm", "h200-sxm"}) {
    for (const char* target : {"qwen3-4b", "qwen3-8b", "qwen3-14b"}) {
      const std::string path =
          kSourceDir + "/profiles/analytic/" + gpu + "/" + std::string(target) + ".json";
      INFO(path << " is stale: regenerate it with the commands in profiles/README.md");
      const Profile committed = load_profile(path);
      CHECK(committed.is_analytic());
      const Profile fresh = make_analytic_profile(shapes(), gpu, target, committed.provenance.date,
                                                  committed.provenance.git_sha);
      CHECK(first_difference(profile_to_json(committed), profile_to_json(fresh)) == "");
    }
  }
}

TEST_CASE("qwen3-8b on h100: weights, KV size and capacity by hand") {
  const Profile p = generate("h100", "qwen3-8b");
  CHECK(p.is_analytic());
  CHECK(p.provenance.gpu == "h100-sxm");
  CHECK(p.provenance.tool == kAnalyticTool);
  CHECK(p.provenance.notes.rfind("ANALYTIC", 0) == 0);
  // 36 layers x (q 4096x4096 + k, v 4096x1024 + o 4096x4096 + 3 x 4096x12288 + norms 2x4096 +
  // 2x128) + final norm 4096 + untied embedding and LM head 2 x 151936x4096 = 8,190,735,360.
  CHECK(p.weights_bytes == 2.0 * 8'190'735'360);
  CHECK(p.kv_bytes_per_token == 36 * 2 * 8 * 128 * 2);
  CHECK(p.hbm_bytes == 80e9);
  CHECK(p.kv_capacity_tokens() == 377'187);
  // Qwen3-4B ties its embeddings: one 151936x2560 matrix, 4,022,468,096 parameters.
  CHECK(generate("h200", "qwen3-4b").weights_bytes == 2.0 * 4'022'468'096);
}

TEST_CASE("a decode step at B = 1 is weight streaming plus kernel overheads") {
  const RooflineConstants c;
  const Profile p = generate("h100", "qwen3-8b");
  const TimeModel m(p);
  const double step_us = static_cast<double>(m.verify_time(tokens_only(1))) * 1e-3;
  // The lead's sanity figure: weights over the measured copy bandwidth, 16.4 GB / 3 TB/s.
  const double weights_over_bandwidth_us = p.weights_bytes / 3.0e6;
  CHECK(step_us > weights_over_bandwidth_us);
  CHECK(step_us < 1.2 * weights_over_bandwidth_us);
  // By hand: every weight but the embedding table is read once at 0.95 x 3.0 TB/s, plus
  // 1 + 36 x 12 + 4 = 437 kernels at 2 us and the 20 us step cost; activations are negligible.
  const double streamed = p.weights_bytes - 2.0 * 151936 * 4096;
  const double expected_us =
      streamed / (c.bandwidth_efficiency * 3.0e6) + 437 * c.kernel_overhead_us + c.step_fixed_us;
  CHECK(step_us == Approx(expected_us).epsilon(0.002));
}

TEST_CASE("analytic SPS falls with B and keeps the CUDA-graph staircase") {
  for (const char* gpu : {"h100", "h200"}) {
    for (const char* target : {"qwen3-4b", "qwen3-8b", "qwen3-14b"}) {
      INFO(gpu << " " << target);
      const Profile p = generate(gpu, target);
      const SpsTable sps(p.sps, 8192);
      for (std::int64_t b = 2; b <= 8192; ++b) {
        if (sps.steps_per_s(b) > sps.steps_per_s(b - 1)) FAIL("SPS rises at B = " << b);
      }
      const TimeModel m(p);
      // 9..16 tokens all run the 16-token graph: same dense time.
      CHECK(m.verify_time(tokens_only(9)) == m.verify_time(tokens_only(16)));
      CHECK(m.verify_time(tokens_only(8)) < m.verify_time(tokens_only(9)));
      // In SPS, padding 8 -> 9 costs more than the seven tokens from 9 to 16 (which only add
      // attention work at the reference shape).
      CHECK(sps.steps_per_s(8) - sps.steps_per_s(9) > sps.steps_per_s(9) - sps.steps_per_s(16));
      // Above the largest bucket there is no padding: 513 costs little more than 512.
      CHECK(m.verify_time(tokens_only(513)) - m.verify_time(tokens_only(512)) <
            m.verify_time(tokens_only(512)) / 100);
    }
  }
}

TEST_CASE("dspark's Markov loop costs the DSpark paper's 160 us per position at batch 128") {
  const RooflineConstants c;
  for (const char* gpu : {"h100", "h200"}) {
    const TimeModel m(generate(gpu, "qwen3-8b"));
    const DrafterSpec dspark = parse_drafter("dspark-7");
    const DrafterSpec dflash = parse_drafter("dflash-7");
    const SimTime difference =
        m.draft_time(dspark, 128, 128 * 2048) - m.draft_time(dflash, 128, 128 * 2048);
    CHECK(std::llabs(difference - 7 * 160'000) <= 10);
    CHECK(c.markov_us_per_position == 160.0);
    // At batch 1 only the roofline's per-pass part remains: well under half.
    CHECK(m.draft_time(dspark, 1) - m.draft_time(dflash, 1) < 7 * 80'000);
  }
}

TEST_CASE("drafter costs order as their shapes say") {
  const TimeModel m(generate("h100", "qwen3-8b"));
  // eagle3's passes are sequential: doubling γ almost doubles its cost at batch 1.
  const SimTime e4 = m.draft_time(parse_drafter("eagle3-4"), 1);
  const SimTime e8 = m.draft_time(parse_drafter("eagle3-8"), 1);
  CHECK(e8 > 1.8 * e4);
  // dflash drafts the whole block in one pass: γ barely matters at batch 1.
  const SimTime d4 = m.draft_time(parse_drafter("dflash-4"), 1);
  const SimTime d8 = m.draft_time(parse_drafter("dflash-8"), 1);
  CHECK(d8 < 1.05 * d4);
  // mtp1 is one layer: cheaper than dflash's five.
  CHECK(m.draft_time(parse_drafter("mtp1"), 1) < d4);
}

TEST_CASE("unknown GPUs and targets list the valid ones") {
  CHECK(testing::error_of([] { generate("a100", "qwen3-8b"); }) ==
        "--gpu: unknown GPU 'a100'; valid: h100-sxm, h200-sxm");
  CHECK(testing::error_of([] { generate("h100", "deepseek-v4-flash"); }) ==
        "--target: unknown or unsupported target 'deepseek-v4-flash'; valid: llama-3.1-8b, "
        "qwen3-14b, qwen3-32b, qwen3-4b, qwen3-8b");
  CHECK(generate("h100-sxm", "qwen3-4b").provenance.gpu == "h100-sxm");
}

TEST_CASE("a malformed shapes file is reported at its line") {
  std::string text = shapes().text();
  const std::string from = "\"hidden\": 4096";
  text.replace(text.find(from), from.size(), "\"hidden\": \"4k\"");
  const JsonFile bad = JsonFile::parse(text, "shapes.json");
  const std::int64_t line = testing::line_containing(text, "\"hidden\": \"4k\"");
  CHECK(
      testing::error_of([&] {
        make_analytic_profile(bad, "h100", "qwen3-8b", "2025-01-01", "");
      }).rfind("shapes.json:" + std::to_string(line) + ": targets.qwen3-8b.hidden is \"4k\"", 0) ==
      0);
}

TEST_CASE("the json overload and graph buckets") {
  const Profile a = make_analytic_profile(shapes().root(), "h200", "qwen3-14b", "2025-01-01", "x");
  const Profile b = make_analytic_profile(shapes(), "h200", "qwen3-14b", "2025-01-01", "x");
  CHECK(profile_to_json(a) == profile_to_json(b));
  const auto buckets = vllm_graph_buckets(512);
  CHECK(buckets.size() == 3 + 64);
  CHECK(buckets[3] == 8);
  CHECK(buckets.back() == 512);
  const BatchShape s = sps_reference_batch(9, kSpsReferenceShape);
  CHECK(s.decode_requests == 3);
  CHECK(s.decode_context_tokens == 3 * 2048);
  CHECK(s.verify_attention_pairs == 9 * 2048);
}

}  // namespace
}  // namespace sparksim
