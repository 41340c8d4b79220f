// Tensor-parallel and FP8 measured-db composition: a Llama-3.1-8B TP-2 decode step against a
// hand sum of named rows of profiles/data/aic/h100_sxm (GEMMs of one GPU's shard, its attention
// row, and the two-per-layer all-reduce), the replica's memory per GPU, and FP8 refused where the
// database has no fp8 GEMM rows for a projection.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "profiles/analytic_profile.hpp"
#include "profiles/step_composition/measured_db_profile.hpp"
#include "profiles/step_composition/step_composer.hpp"

namespace sparksim {
namespace {

namespace fs = std::filesystem;
const std::string kSource = SPARKSIM_SOURCE_DIR;
const std::string kDatabase = kSource + "/profiles/data/aic";

TEST_CASE("a TP-2 decode step equals the hand sum of its named database rows") {
  const JsonFile shapes = JsonFile::load(kSource + "/profiles/model_shapes.json");
  const DenseTargetShape shard =
      shard_for_tensor_parallel(read_dense_target(shapes, "llama-3.1-8b"), 2);
  CHECK(shard.q_heads == 16);
  CHECK(shard.kv_heads == 4);
  CHECK(shard.ffn == 7168);
  CHECK(shard.vocab == 64128);
  CHECK(shard.sampled_vocab == 128256);
  const KernelDatabase db = KernelDatabase::load(
      kDatabase, "h100-sxm", AttentionHeads{shard.q_heads, shard.kv_heads, shard.head_dim},
      "bfloat16", "llama-3.1-8b");
  const StepComposer composer(db, shard, vllm_graph_buckets(512),
                              memory_bound_rates(shapes, "h100"));
  // 8 requests decoding one token each at 2048 KV entries (step 2047): m = 8 (a graph bucket).
  // Rows of profiles/data/aic/h100_sxm/gemm_added_targets.csv, bfloat16, m = 8 (line: n, k, ms):
  const double qkv = 0.013337777720557319;   // line 6009: n 3072 = (16 + 2 x 4) x 128, k 4096
  const double o = 0.00869066682126787;      // line 5989: n 4096, k 2048 = 16 x 128
  const double gate = 0.022389334109094407;  // line 5948: n 7168 = 14336 / 2, k 4096 (x 2)
  const double down = 0.024030221833123103;  // line 5983: n 4096, k 7168
  // attention_generation.csv line 3518: batch 8, 16 heads, 4 KV heads, bf16 KV, step 2047.
  const double attention = 0.017802666872739792;
  // comm_custom_allreduce.csv line 18: 2 GPUs, 32768 = 8 tokens x 4096 hidden, vllm_graph.
  const double all_reduce = 0.004515199959278107;
  const double layers = 32;
  const double hand_gemms = layers * (qkv + o + 2 * gate + down);
  const double hand_all_reduce = (2 * layers + 1) * all_reduce;  // 2 per layer + embedding
  const double hand_attention = layers * attention;

  CHECK(composer.layer_gemms(8).ms * layers == Approx(hand_gemms).epsilon(1e-12));
  CHECK(composer.tensor_parallel_all_reduces(8).ms == Approx(hand_all_reduce).epsilon(1e-12));
  // The memory-bound operations on one GPU's shard widths (hidden 4096 whole, q 16 x 128 = 2048,
  // kv 4 x 128 = 512, ffn 7168; no q/k norms in Llama), 8 tokens, bf16, H100 at 0.95 x 3.0 TB/s
  // = 2.85e6 B/us and 2 us per kernel. Bytes per layer: two RMSNorm + adds 2 x (4096 x 2 weights
  // + 8 x 4 x 4096 x 2) = 540672, RoPE 8 x 2 x (2048 + 512) x 2 = 81920, KV append
  // 8 x 2 x 2 x 512 x 2 = 32768, SiLU*mul 8 x 3 x 7168 x 2 = 344064: 999424 B, 5 kernels.
  // Forward: 32 layers + embedding (8 x 2 x 4096 x 2 = 131072) + final norm (270336):
  // 32382976 B / 2.85e6 = 11.362448 us, 162 kernels x 2 us = 324 us: 0.335362448 ms.
  const double hand_memory_bound = (32382976.0 / 2.85e6 + 324.0) * 1e-3;
  CHECK(composer.forward_memory_bound_ms(8) == Approx(hand_memory_bound).epsilon(1e-12));
  CHECK(composer.dense_forward(8).ms ==
        Approx(hand_gemms + hand_all_reduce + hand_memory_bound).epsilon(1e-12));
  const ComposedStep step = composer.step(StepShape{8, 1, 2048, 0, 0});
  double database_without_head = 0;
  for (const ComposedTerm& t : step.terms) {
    if (t.timed_by_database && t.name.rfind("LM head", 0) != 0) database_without_head += t.ms;
  }
  CHECK(database_without_head ==
        Approx(hand_gemms + hand_all_reduce + hand_attention).epsilon(1e-12));
  // The vocabulary-parallel head is one GPU's 64128 columns, bf16.
  CHECK(step.database_ms() - database_without_head ==
        Approx(db.gemm().latency(8, 64128, 4096).ms).epsilon(1e-12));
  // Sampling reads the gathered logits over the WHOLE vocabulary, 128256, on one GPU: 8 rows x
  // 128256 x (2 + 4 softmax + 4 sampler) B = 10260480 B / 2.85e6 + 2 kernels x 2 us.
  const double hand_sampling = (10260480.0 / 2.85e6 + 4.0) * 1e-3;
  CHECK(composer.logits_and_sampling_ms(8, shard.sampled_vocab) ==
        Approx(hand_sampling).epsilon(1e-12));
  CHECK(step.total_ms - step.database_ms() ==
        Approx(hand_memory_bound + hand_sampling).epsilon(1e-12));
  // At TP 1 nothing is communicated.
  const DenseTargetShape whole = read_dense_target(shapes, "llama-3.1-8b");
  const KernelDatabase db1 = KernelDatabase::load(
      kDatabase, "h100-sxm", AttentionHeads{whole.q_heads, whole.kv_heads, whole.head_dim},
      "bfloat16", "llama-3.1-8b");
  CHECK(StepComposer(db1, whole, vllm_graph_buckets(512), memory_bound_rates(shapes, "h100"))
            .tensor_parallel_all_reduces(8)
            .ms == 0);
}

TEST_CASE("above the largest graph bucket the all-reduce rows are the eager ones") {
  const JsonFile shapes = JsonFile::load(kSource + "/profiles/model_shapes.json");
  const DenseTargetShape shard =
      shard_for_tensor_parallel(read_dense_target(shapes, "qwen3-32b"), 4);
  const KernelDatabase db = KernelDatabase::load(
      kDatabase, "h100-sxm", AttentionHeads{shard.q_heads, shard.kv_heads, shard.head_dim},
      "bfloat16", "qwen3-32b");
  const StepComposer composer(db, shard, vllm_graph_buckets(512),
                              memory_bound_rates(shapes, "h100"));
  const AllReduceTable& t = *db.all_reduce();
  CHECK(composer.tensor_parallel_all_reduces(512).ms ==
        Approx(129 * t.latency(4, 512 * 5120, LaunchMode::kCudaGraph).ms).epsilon(1e-12));
  CHECK(composer.tensor_parallel_all_reduces(1024).ms ==
        Approx(129 * t.latency(4, 1024 * 5120, LaunchMode::kEager).ms).epsilon(1e-12));
}

TEST_CASE("a TP-N profile is one replica of N GPUs with each GPU's KV capacity") {
  const JsonFile shapes = JsonFile::load(kSource + "/profiles/model_shapes.json");
  const Profile one =
      make_measured_db_profile(kDatabase, shapes, "h100-sxm", "qwen3-32b", "2026-01-01", "x")
          .profile;
  const Profile four = make_measured_db_profile(kDatabase, shapes, "h100-sxm", "qwen3-32b",
                                                "2026-01-01", "x", {4, "bf16"})
                           .profile;
  CHECK(one.gpus == 1);
  CHECK(four.gpus == 4);
  CHECK(four.hbm_bytes == Approx(4 * one.hbm_bytes));
  CHECK(four.weights_bytes == one.weights_bytes);
  // Each GPU holds a quarter of the weights and a quarter of every token's KV heads.
  const double per_gpu_free = one.hbm_bytes * one.memory_utilization - one.weights_bytes / 4;
  const double per_gpu_kv_per_token = one.kv_bytes_per_token / 4;
  CHECK(static_cast<double>(four.kv_capacity_tokens()) ==
        Approx(std::floor(per_gpu_free / per_gpu_kv_per_token)).margin(1));
  // Drafters the target has none of get no cost.
  CHECK_FALSE(four.draft[static_cast<int>(DrafterFamily::kDspark)].has_value());
  // FP8: layer weights one byte each.
  const Profile fp8 = make_measured_db_profile(kDatabase, shapes, "h100-sxm", "qwen3-32b",
                                               "2026-01-01", "x", {1, "fp8"})
                          .profile;
  const double linear = 64.0 * (5120.0 * (8192 + 2 * 1024) + 8192.0 * 5120 + 3 * 5120.0 * 25600);
  CHECK(one.weights_bytes - fp8.weights_bytes == Approx(linear));
  CHECK(fp8.verify.dense_us.front() < one.verify.dense_us.front());
}

TEST_CASE("fp8 is refused where the database has no fp8 GEMM rows for a projection") {
  // A copy of the H100 database whose fp8 GEMM rows stop at n, k <= 4096: Llama-3.1-8B's gate/up
  // (n 14336), down (k 14336) and QKV (n 6144) would need extrapolation; QKV is checked first.
  const fs::path dir = fs::temp_directory_path() / "sparksim_tp_fp8_refused";
  fs::remove_all(dir);
  fs::create_directories(dir / "h100_sxm");
  {
    // The same identity without the added rows: gemm.csv alone, its fp8 rows trimmed below.
    nlohmann::json identity = JsonFile::load(kDatabase + "/database.json").root();
    identity.erase("added_gemm");
    std::ofstream(dir / "database.json") << identity.dump(2);
  }
  for (const char* f : {"attention_context.csv", "attention_generation.csv"}) {
    fs::copy_file(kDatabase + "/h100_sxm/" + f, dir / "h100_sxm" / f);
  }
  {
    std::ifstream in(kDatabase + "/h100_sxm/gemm.csv");
    std::ofstream out(dir / "h100_sxm/gemm.csv");
    std::string line;
    std::getline(in, line);
    out << line << "\n";
    while (std::getline(in, line)) {
      // Columns: framework,version,device,op_name,kernel_source,gemm_dtype,m,n,k,latency_ms.
      std::vector<std::string> cells;
      std::stringstream row(line);
      for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
      const bool small = std::stoll(cells.at(7)) <= 4096 && std::stoll(cells.at(8)) <= 4096;
      if (cells.at(5) != "fp8" || small) out << line << "\n";
    }
  }
  const JsonFile shapes = JsonFile::load(kSource + "/profiles/model_shapes.json");
  CHECK_THROWS_WITH(
      make_measured_db_profile(dir.string(), shapes, "h100-sxm", "llama-3.1-8b", "2026-01-01", "x",
                               {1, "fp8"}),
      Catch::Contains("--precision fp8: the database has no fp8 GEMM rows for llama-3.1-8b's "
                      "QKV projection at TP 1"));
  CHECK_THROWS_AS(make_measured_db_profile(kDatabase, shapes, "h100-sxm", "llama-3.1-8b",
                                           "2026-01-01", "x", {3, "bf16"}),
                  InputError);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sparksim
