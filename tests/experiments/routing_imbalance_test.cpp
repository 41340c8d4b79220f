// routing_imbalance on a DeepSeek-V4 profile, against hand-worked step times. Flash on H200,
// dep8, FP8 experts, no two-batch overlap (the committed analytic profile): the hottest rank
// computes imbalance x T x k / N (token, expert) hits for T = 8 B group tokens, each 2 x 3 x
// hidden x expert_ffn FLOPs; at B = 4096 tokens per GPU the routed experts are compute-bound
// (2.3 ms of FLOPs at 0.30 x 1978 TFLOP/s against 0.38 ms of bytes at 0.63 x 4.8 TB/s) and longer
// than the shared expert (0.36 ms), so moving imbalance from 1.1 to 1.5 adds, over 43 layers,
// 43 x 0.4 x 24576 x 2 x 25165824 / (0.30 x 1978e12) s. At B = 1 the experts are weight-bound:
// only the activation bytes of the extra hits move, 43 x 0.4 x 6 x 4096 x 3 / (0.63 x 4.8e12) s.
#include "experiments/sensitivity/routing_imbalance.hpp"

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "profiles/profile_io.hpp"

namespace sparksim {
namespace {

const char* kFlash = "profiles/moe-analytic/h200-sxm/deepseek-v4-flash-dep8-fp8.json";

double dense_at(const Profile& p, std::int64_t tokens) {
  for (std::size_t i = 0; i < p.verify.dense_tokens.size(); ++i) {
    if (p.verify.dense_tokens[i] == tokens) return p.verify.dense_us[i];
  }
  FAIL("no dense-table entry at " << tokens << " tokens");
  return 0;
}

TEST_CASE("routing_imbalance adds only the hottest rank's extra expert work (hand-worked)",
          "[sensitivity][routing]") {
  const Profile nominal = load_profile(kFlash);
  REQUIRE(nominal.target == "deepseek-v4-flash");
  const ProfileReplica replica = profile_replica(nominal);
  CHECK(replica.topology.name == "dep8");
  CHECK(replica.topology.expert_parallel == 8);
  CHECK_FALSE(replica.two_batch_overlap);
  CHECK(nominal_routing_imbalance() == 1.1);

  Profile moved = nominal;
  apply_routing_imbalance(moved, 1.5);
  const double layers = 43, extra = 1.5 - 1.1;
  const double hits_4096 = 8.0 * 4096 * 6 / 8;  // group tokens x top-k / ranks
  const double flops = 2.0 * extra * hits_4096 * 3.0 * 4096 * 2048;
  CHECK(dense_at(moved, 4096) - dense_at(nominal, 4096) ==
        Approx(layers * flops / (0.30 * 1978e12) * 1e6).epsilon(1e-9));
  const double bytes = extra * 6 * 4096 * 3.0;  // one token per GPU: 8 x 6 / 8 hits per unit
  CHECK(dense_at(moved, 1) - dense_at(nominal, 1) ==
        Approx(layers * bytes / (0.63 * 4.8e12) * 1e6).epsilon(1e-9));
  // Everything else stays: per-request and per-pair terms, drafters, host overhead.
  CHECK(moved.verify.per_request_us == nominal.verify.per_request_us);
  CHECK(moved.verify.attention_ns_per_pair == nominal.verify.attention_ns_per_pair);
  CHECK(moved.host_overhead_us == nominal.host_overhead_us);
  for (std::size_t f = 0; f < moved.draft.size(); ++f) {
    CHECK(moved.draft[f].has_value() == nominal.draft[f].has_value());
    if (moved.draft[f]) CHECK(moved.draft[f]->per_pass_us == nominal.draft[f]->per_pass_us);
  }
  // The scheduler's belief follows: fewer steps per second where the step got longer.
  REQUIRE_FALSE(moved.sps_capture.tokens.empty());
  CHECK(moved.sps_capture.steps_per_s.back() < nominal.sps_capture.steps_per_s.back());

  // At the nominal the profile is unchanged.
  Profile same = nominal;
  apply_routing_imbalance(same, nominal_routing_imbalance());
  CHECK(same.verify.dense_us == nominal.verify.dense_us);
}

TEST_CASE("routing_imbalance is refused on a dense target and on a V4 profile naming no replica",
          "[sensitivity][routing]") {
  Profile dense = load_profile("profiles/analytic/h100-sxm/qwen3-8b.json");
  CHECK_THROWS_WITH(apply_routing_imbalance(dense, 1.5),
                    Catch::Contains("routing_imbalance: the profile's target 'qwen3-8b' is dense"));
  Profile unnamed = load_profile(kFlash);
  unnamed.provenance.notes = "no replica here";
  CHECK_THROWS_WITH(profile_replica(unnamed), Catch::Contains("names no replica"));
}

}  // namespace
}  // namespace sparksim
