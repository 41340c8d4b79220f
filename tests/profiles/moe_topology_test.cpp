// DeepSeek-V4 targets and replica topologies: weight and KV sizes against the published totals
// (docs/moe.md, from aiconfigurator's V4 configs: routed FP8 277 / 1547 GB, FP4 147 / 822 GB,
// replicated dense 9.3 / 30.5 GB per GPU), memory of dep8 on H200 worked by hand, and the
// topology errors a user can make.
#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "profiles/moe/replica_topology.hpp"

namespace sparksim {
namespace {

const MoeTarget& flash() {
  return moe_target("deepseek-v4-flash");
}
const MoeTarget& pro() {
  return moe_target("deepseek-v4-pro");
}

TEST_CASE("V4 weight totals match the published sizes within 1%") {
  CHECK(flash().routed_weight_bytes(ExpertFormat::kFp8) / 1e9 == Approx(277).epsilon(0.01));
  CHECK(flash().routed_weight_bytes(ExpertFormat::kFp4) / 1e9 == Approx(147).epsilon(0.01));
  CHECK(pro().routed_weight_bytes(ExpertFormat::kFp8) / 1e9 == Approx(1547).epsilon(0.01));
  CHECK(pro().routed_weight_bytes(ExpertFormat::kFp4) / 1e9 == Approx(822).epsilon(0.01));
  CHECK(flash().dense_weight_bytes() / 1e9 == Approx(9.3).epsilon(0.01));
  CHECK(pro().dense_weight_bytes() / 1e9 == Approx(30.5).epsilon(0.01));
}

TEST_CASE("compressed KV per token and the sliding window per request, by hand") {
  // Flash: 21 CSA layers × (576 + 68) / 4 + 20 HCA layers × 576 / 128 = 3381 + 90 bytes.
  CHECK(flash().kv_bytes_per_token() == Approx(3471.0));
  // Pro: 30 × 644 / 4 + 31 × 4.5 = 4830 + 139.5.
  CHECK(pro().kv_bytes_per_token() == Approx(4969.5));
  // Window: 43 layers × 128 tokens × 576 B.
  CHECK(flash().window_bytes_per_request() == Approx(3170304.0));
}

TEST_CASE("memory of V4-Flash dep8 fp8 on H200, worked by hand") {
  const MoeGpu& h200 = moe_gpu("h200");
  const ReplicaTopology t = parse_topology("dep8", flash(), ExpertFormat::kFp8, 8);
  const GpuMemory m = gpu_memory(flash(), h200, t, 256);
  // Routed: 43 × 256 × 3 × 4096 × 2048 = 277,025,390,592 B over 8 GPUs.
  CHECK(m.routed_weight_bytes == Approx(34628173824.0));
  // Dense: 43 × (107e6 + 34e6 + 25,165,824 shared + 2,097,152 router) + 2,118,123,520 embed/head.
  CHECK(m.dense_weight_bytes == Approx(9353431488.0));
  // Windows: 256 × 3,170,304 B; usable 141e9 × 0.9.
  CHECK(m.window_reserve_bytes == Approx(811597824.0));
  const double kv = 126.9e9 - 34628173824.0 - 9353431488.0 - 811597824.0;  // 82.11 GB
  CHECK(m.kv_bytes == Approx(kv));
  CHECK(m.kv_tokens == static_cast<std::int64_t>(kv / 3471.0));  // 23,654,508 tokens
}

TEST_CASE("a topology that does not fit is refused with the numbers that do not fit") {
  const MoeGpu& h200 = moe_gpu("h200");
  // Pro dep16 fp8: 1547 GB / 16 = 96.7 GB routed + 30.5 GB dense > 126.9 GB usable.
  const ReplicaTopology t = parse_topology("dep16", pro(), ExpertFormat::kFp8, 8);
  CHECK_THROWS_WITH(
      require_fits(pro(), h200, t, 256, 1),
      Catch::Contains("dep16 (fp8 experts) does not fit deepseek-v4-pro on h200-sxm") &&
          Catch::Contains("routed experts 96.7 GB") && Catch::Contains("dense 30.5 GB") &&
          Catch::Contains("usable 126.9 GB"));
  // dep32 fp8 fits (48.3 + 30.5 GB of weights leave about 45 GB of KV).
  const ReplicaTopology ok = parse_topology("dep32", pro(), ExpertFormat::kFp8, 8);
  CHECK_NOTHROW(require_fits(pro(), h200, ok, 256, 8192));
  CHECK(gpu_memory(pro(), h200, ok, 256).kv_bytes / 1e9 == Approx(46.9).epsilon(0.01));
}

TEST_CASE("topology names: dep<N> and tp<N>, with the errors a user can make") {
  const ReplicaTopology t = parse_topology("dep16", flash(), ExpertFormat::kFp4, 8);
  CHECK(t.attention == AttentionParallel::kData);
  CHECK(t.gpus == 16);
  CHECK(t.expert_parallel == 16);
  CHECK(t.crosses_nodes());
  CHECK(t.attention_ranks() == 16);
  const ReplicaTopology tp = parse_topology("tp8", flash(), ExpertFormat::kFp8, 8);
  CHECK(tp.attention == AttentionParallel::kTensor);
  CHECK(tp.attention_ranks() == 1);
  CHECK_FALSE(tp.crosses_nodes());
  CHECK_THROWS_WITH(parse_topology("ep8", flash(), ExpertFormat::kFp8, 8),
                    Catch::Contains("'ep8' is not a topology"));
  CHECK_THROWS_WITH(parse_topology("dep", flash(), ExpertFormat::kFp8, 8),
                    Catch::Contains("has no GPU count"));
  CHECK_THROWS_WITH(parse_topology("dep0", flash(), ExpertFormat::kFp8, 8),
                    Catch::Contains("has no GPU count"));
  CHECK_THROWS_WITH(parse_topology("dep12", flash(), ExpertFormat::kFp8, 8),
                    Catch::Contains("expert-parallel size 12, which does not divide") &&
                        Catch::Contains("256 routed experts"));
  CHECK_NOTHROW(parse_topology("dep12", pro(), ExpertFormat::kFp8, 8));  // 384 = 12 × 32
  CHECK_THROWS_WITH(parse_topology("tp3", pro(), ExpertFormat::kFp8, 8),
                    Catch::Contains("does not divide"));
  CHECK_THROWS_AS(moe_target("qwen3-8b"), InputError);
  CHECK_THROWS_AS(parse_expert_format("fp16"), InputError);
  CHECK_THROWS_AS(moe_gpu("b200"), InputError);
}

}  // namespace
}  // namespace sparksim
