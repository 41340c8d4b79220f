// The measured-db composition: the database README's worked Qwen3-8B example reproduced within
// 1% (its numbers kept as data with their source), each term against the README's per-row
// values, a verify and a prefill step against sums hand-built from named rows, and the drafter
// compositions against their named GEMMs.
#include "profiles/step_composition/step_composer.hpp"

#include <catch2/catch.hpp>

#include "common/json_file.hpp"
#include "profiles/analytic_profile.hpp"

namespace sparksim {
namespace {

const std::string kSource = SPARKSIM_SOURCE_DIR;
const std::string kDatabase = kSource + "/profiles/data/aic";

struct Fixture {
  JsonFile shapes = JsonFile::load(kSource + "/profiles/model_shapes.json");
  DenseTargetShape shape;
  KernelDatabase db;
  StepComposer composer;
  explicit Fixture(const std::string& gpu, const std::string& target = "qwen3-8b")
      : shape(read_dense_target(shapes, target)),
        db(KernelDatabase::load(kDatabase, gpu,
                                AttentionHeads{shape.q_heads, shape.kv_heads, shape.head_dim})),
        composer(db, shape, vllm_graph_buckets(512), memory_bound_rates(shapes, gpu)) {}
};

TEST_CASE("composition reproduces the database README's worked Qwen3-8B example within 1%") {
  const JsonFile example = JsonFile::load(kSource + "/tests/profiles/data/aic_worked_example.json");
  const nlohmann::json& rows = example.root().at("rows");
  REQUIRE(rows.size() == 6);
  for (const auto& row : rows) {
    const Fixture f(row.at("gpu").get<std::string>());
    const std::int64_t batch = row.at("batch").get<std::int64_t>();
    INFO(row.at("gpu").get<std::string>() << " batch " << batch);
    const ComposedStep step = f.composer.step(StepShape{batch, 1, 2048, 0, 0});
    // The README's example composes GEMMs and attention only: the database-timed sub-sum.
    CHECK(step.database_ms() == Approx(row.at("step_ms").get<double>()).epsilon(0.01));
    // Tighter: the README's own tolerance for a composition following the same rules.
    CHECK(step.database_ms() == Approx(row.at("step_ms").get<double>()).margin(0.0006));
    // The memory-bound terms come on top, named.
    CHECK(step.total_ms > step.database_ms());
    const double layer = row.at("qkv").get<double>() + row.at("o").get<double>() +
                         row.at("gate_up").get<double>() + row.at("down").get<double>();
    CHECK(f.composer.layer_gemms(batch).ms == Approx(layer).margin(2e-5));
    CHECK(f.composer.lm_head(batch, 151936).ms ==
          Approx(row.at("lm_head").get<double>()).margin(5e-6));
    CHECK(f.composer.verify_attention(batch, 1, 2048).ms ==
          Approx(row.at("attn").get<double>()).margin(5e-6));
    // Batch 256 at context 2048 is outside the measured grid, and the step says so.
    CHECK(step.outside_grid.size() >= (batch == 256 ? 2u : 1u));  // the LM head always is
  }
}

TEST_CASE("a padded verify step and a prefill chunk equal their named rows' sums") {
  const Fixture f("h100-sxm");
  const GemmTable& g = f.db.gemm();
  // 3 requests x 3 tokens = 9 verify tokens, padded to the bucket 16: GEMMs at m = 16, the LM
  // head on the 9 verified rows, decode attention at batch 3 between steps 511 and 1023.
  const ComposedStep s = f.composer.step(StepShape{3, 3, 768, 0, 0});
  const double gemms = g.latency(16, 6144, 4096).ms + g.latency(16, 4096, 4096).ms +
                       2 * g.latency(16, 12288, 4096).ms + g.latency(16, 4096, 12288).ms;
  const double head = g.latency(9, 151936, 4096).ms;
  const double a511 = f.db.decode_attention().latency(3, 511).ms;
  const double a1023 = f.db.decode_attention().latency(3, 1023).ms;
  const double attention = a511 + (a1023 - a511) * 256.0 / 512.0;  // step 767
  CHECK(s.database_ms() == Approx(36 * (gemms + attention) + head).epsilon(1e-9));
  // A 2048-token chunk after 1024 cached, alone: GEMMs at m = 2048 (eager), the head on one
  // row, the prefill row (1, 2048) plus 2048 x 1024 pairs at the prefill table's pair rate.
  const ComposedStep p = f.composer.step(StepShape{0, 1, 0, 2048, 1024});
  const double gemms_p = g.latency(2048, 6144, 4096).ms + g.latency(2048, 4096, 4096).ms +
                         2 * g.latency(2048, 12288, 4096).ms + g.latency(2048, 4096, 12288).ms;
  const double rate = f.db.prefill_attention().latency(1, 16384).ms / (16384.0 * 16385.0 / 2);
  const double attn_p = f.db.prefill_attention().latency(1, 2048).ms + rate * 2048 * 1024;
  CHECK(p.database_ms() ==
        Approx(36 * (gemms_p + attn_p) + g.latency(1, 151936, 4096).ms).epsilon(1e-9));
}

TEST_CASE("drafter compositions: named GEMMs, the Markov loop per position") {
  const Fixture f("h100-sxm");
  const GemmTable& g = f.db.gemm();
  const auto spec = [](DrafterFamily fam, int gamma) { return DrafterSpec{fam, gamma, ""}; };
  const ComposedStep dflash = f.composer.draft(spec(DrafterFamily::kDflash, 7), 4, 2048);
  const ComposedStep dspark = f.composer.draft(spec(DrafterFamily::kDspark, 7), 4, 2048);
  // dspark = dflash + 7 x the rank -> vocab GEMM (n = 151936, k = 256) at m = R.
  const double markov = g.latency(4, 151936, 256).ms;
  CHECK(dspark.total_ms - dflash.total_ms == Approx(7 * markov).epsilon(1e-9));
  // That GEMM is below the grid's smallest k and above its largest n, and says so.
  CHECK(g.latency(4, 151936, 256).outside_grid.size() == 2);
  // mtp1 at R = 8: fc (n = 4096, k = 8192) + one layer + its attention + the LM head.
  const ComposedStep mtp1 = f.composer.draft(spec(DrafterFamily::kMtp1, 1), 8, 1024);
  const double expected = g.latency(8, 4096, 8192).ms + f.composer.layer_gemms(8).ms +
                          f.composer.verify_attention(8, 1, 1024).ms +
                          g.latency(8, 151936, 4096).ms;
  CHECK(mtp1.database_ms() == Approx(expected).epsilon(1e-9));
  // eagle3's passes are sequential: γ = 7 costs 7 passes, one fusion GEMM.
  const ComposedStep e1 = f.composer.draft(spec(DrafterFamily::kEagle3, 1), 8, 1024);
  const ComposedStep e7 = f.composer.draft(spec(DrafterFamily::kEagle3, 7), 8, 1024);
  const double fuse = g.latency(8, 4096, 12288).ms;
  CHECK(e7.total_ms - fuse == Approx(7 * (e1.total_ms - fuse)).epsilon(1e-9));
}

}  // namespace
}  // namespace sparksim
