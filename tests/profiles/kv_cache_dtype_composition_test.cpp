// An FP8 KV cache in the measured-db composition (`--kv-cache-dtype fp8`): a Llama-3.1-8B TP-2
// decode step against a hand sum of named rows of profiles/data/aic/h100_sxm (the fp8-KV decode
// row, the same GEMM and all-reduce rows as bf16), a prefill chunk's fp8-KV context row, the
// KV-cache append's bytes, the profile's KV bytes per token (exactly half) and capacity, and a
// value other than bf16 / fp8 refused before any work.
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "profiles/analytic_profile.hpp"
#include "profiles/step_composition/measured_db_profile.hpp"
#include "profiles/step_composition/step_composer.hpp"

namespace sparksim {
namespace {

const std::string kSource = SPARKSIM_SOURCE_DIR;
const std::string kDatabase = kSource + "/profiles/data/aic";

TEST_CASE("an fp8-KV TP-2 decode step equals the hand sum of its named database rows") {
  const JsonFile shapes = JsonFile::load(kSource + "/profiles/model_shapes.json");
  const DenseTargetShape shard =
      shard_for_tensor_parallel(read_dense_target(shapes, "llama-3.1-8b"), 2);
  const KernelDatabase db = KernelDatabase::load(
      kDatabase, "h100-sxm", AttentionHeads{shard.q_heads, shard.kv_heads, shard.head_dim, "fp8"},
      "bfloat16", "llama-3.1-8b");
  CHECK(db.kv_cache_dtype() == "fp8");
  const StepComposer composer(db, shard, vllm_graph_buckets(512),
                              memory_bound_rates(shapes, "h100"));
  // 8 requests decoding one token each at 2048 KV entries (step 2047), m = 8. GEMM rows of
  // gemm_added_targets.csv, bfloat16, m = 8 (the KV dtype does not touch them):
  const double qkv = 0.013337777720557319;   // line 6009: n 3072, k 4096
  const double o = 0.00869066682126787;      // line 5989: n 4096, k 2048
  const double gate = 0.022389334109094407;  // line 5948: n 7168, k 4096 (x 2)
  const double down = 0.024030221833123103;  // line 5983: n 4096, k 7168
  // attention_generation.csv line 3519: batch 8, 16 heads, 4 KV heads, kv_cache_dtype fp8, step
  // 2047, window 0 (line 3518, the bf16-KV row, is 0.017802666872739792).
  const double attention_fp8_kv = 0.019920000185569126;
  // comm_custom_allreduce.csv line 18: 2 GPUs, 32768 elements, vllm_graph.
  const double all_reduce = 0.004515199959278107;
  const double layers = 32;
  CHECK(composer.verify_attention(8, 1, 2048).ms == Approx(attention_fp8_kv).epsilon(1e-12));
  const ComposedStep step = composer.step(StepShape{8, 1, 2048, 0, 0});
  double database_without_head = 0;
  for (const ComposedTerm& t : step.terms) {
    if (t.timed_by_database && t.name.rfind("LM head", 0) != 0) database_without_head += t.ms;
  }
  const double hand = layers * (qkv + o + 2 * gate + down) + (2 * layers + 1) * all_reduce +
                      layers * attention_fp8_kv;
  CHECK(database_without_head == Approx(hand).epsilon(1e-12));

  // A 2048-token prompt with no cached prefix: attention_context.csv line 2697 (batch 1, isl
  // 2048, 16/4 heads, kv_cache_dtype fp8; the bf16-KV row, line 2699, is 0.05061866839726766).
  CHECK(composer.prefill_attention(2048, 0).ms == Approx(0.0631520003080368).epsilon(1e-12));

  // The KV-cache append writes 1 byte per element instead of 2: per layer at 8 tokens the bf16
  // composition's 999424 B (tensor_parallel_composition_test.cpp) less 8 x 2 x 512 x 1 = 8192 B,
  // at 2.85e6 B/us, plus 5 kernels x 2 us.
  CHECK(composer.layer_memory_bound_ms(8) ==
        Approx(((999424.0 - 8192.0) / 2.85e6 + 10.0) * 1e-3).epsilon(1e-12));
}

TEST_CASE("an fp8 KV cache halves the KV bytes per token and doubles what fits") {
  const JsonFile shapes = JsonFile::load(kSource + "/profiles/model_shapes.json");
  const MeasuredDbDeployment bf16_kv{2, "fp8", "bf16"};
  const MeasuredDbDeployment fp8_kv{2, "fp8", "fp8"};
  const Profile bf16 = make_measured_db_profile(kDatabase, shapes, "h100-sxm", "llama-3.1-8b",
                                                "2026-01-01", "x", bf16_kv)
                           .profile;
  const Profile fp8 = make_measured_db_profile(kDatabase, shapes, "h100-sxm", "llama-3.1-8b",
                                               "2026-01-01", "x", fp8_kv)
                          .profile;
  // Llama-3.1-8B: 32 layers x 2 (K, V) x 8 KV heads x 128 x 2 bytes = 131072; fp8: 1 byte.
  CHECK(bf16.kv_bytes_per_token == 131072.0);
  CHECK(fp8.kv_bytes_per_token == 65536.0);
  CHECK(fp8.weights_bytes == bf16.weights_bytes);
  // Each GPU's free bytes hold twice the tokens (floors of x and 2x differ by at most 1).
  const std::int64_t twice = 2 * bf16.kv_capacity_tokens();
  CHECK(fp8.kv_capacity_tokens() >= twice);
  CHECK(fp8.kv_capacity_tokens() <= twice + 1);
  CHECK(fp8.provenance.notes.find("KV cache fp8") != std::string::npos);
  CHECK(bf16.provenance.notes.find("KV cache fp8") == std::string::npos);
  CHECK(bf16.provenance.notes.find("(bf16 KV cache)") != std::string::npos);
  CHECK(fp8.provenance.notes.find("(fp8 KV cache)") != std::string::npos);
}

TEST_CASE("a KV-cache dtype other than bf16 or fp8 is refused") {
  const JsonFile shapes = JsonFile::load(kSource + "/profiles/model_shapes.json");
  CHECK_THROWS_WITH(make_measured_db_profile(kDatabase, shapes, "h100-sxm", "llama-3.1-8b",
                                             "2026-01-01", "x", {1, "bf16", "fp16"}),
                    "--kv-cache-dtype: 'fp16'; valid: bf16, fp8");
  CHECK_THROWS_AS(database_kv_cache_dtype("e4m3"), InputError);
  CHECK(database_kv_cache_dtype("fp8") == "fp8");
  CHECK(database_kv_cache_dtype("bf16") == "bfloat16");
  CHECK(kv_cache_element_bytes("fp8") * 2 == kv_cache_element_bytes("bfloat16"));
}

}  // namespace
}  // namespace sparksim
