// The outputs a sensitivity study reads off a capacity plan, on hand-built plan results: a
// group's GPUs are the fewest among its topologies that meet the SLO, a gain is the baseline's
// GPUs over the policy's in the same fleet, unmet is NaN, and the names and groups follow
// run_plan's order (policy, then router, then layout).
#include "experiments/sensitivity/plan_study_outputs.hpp"

#include <cmath>

#include <catch2/catch.hpp>

using namespace sparksim;

namespace {

PolicyPlan row(std::optional<std::int64_t> replicas, std::int64_t gpus_per_replica) {
  PolicyPlan p;
  p.replicas = replicas;
  p.gpus_per_replica = gpus_per_replica;
  return p;
}

PlanConfig three_policies() {
  PlanConfig c;
  c.options.policies = {"mtp1+static:k=1", "dspark-5+async-topk", "dspark-5+greedy"};
  c.baseline = 0;
  return c;
}

}  // namespace

TEST_CASE(
    "plan outputs: the fewest GPUs over topologies, gains as baseline GPUs over the policy's") {
  const PlanConfig c = three_policies();
  const auto outputs = plan_study_outputs(c);
  REQUIRE(outputs.size() == 5);  // two gains, then three GPU counts
  CHECK(outputs[0].name == "GPU gain dspark-5+async-topk vs mtp1+static:k=1");
  CHECK(outputs[0].is_comparison());
  CHECK(outputs[1].name == "GPU gain dspark-5+greedy vs mtp1+static:k=1");
  CHECK(outputs[2].name == "GPUs needed, mtp1+static:k=1");
  CHECK_FALSE(outputs[2].is_comparison());
  CHECK(outputs[4].name == "GPUs needed, dspark-5+greedy");

  // Two topologies per group (dep8: 8 GPUs a replica, dep16: 16), in run_plan's order.
  PlanResult r;
  r.plans = {row(std::nullopt, 8),
             row(2, 16),  // mtp1: dep8 unmet, dep16 2 x 16 = 32
             row(3, 8),
             row(2, 16),  // async-topk: 24 (dep8) beats 32 (dep16)
             row(std::nullopt, 8),
             row(std::nullopt, 16)};  // greedy: unmet on both
  const auto values = plan_output_values(r, plan_groups(c.options), outputs);
  CHECK(values[0] == Approx(32.0 / 24.0));
  CHECK(std::isnan(values[1]));  // greedy unmet: no gain, never zero
  CHECK(values[2] == 32);
  CHECK(values[3] == 24);
  CHECK(std::isnan(values[4]));
}

TEST_CASE("plan outputs: with several fleets each policy is compared within its fleet") {
  PlanConfig c = three_policies();
  c.options.policies.pop_back();
  c.options.routers = {"round-robin", "least-loaded"};
  const auto outputs = plan_study_outputs(c);
  REQUIRE(outputs.size() == 6);  // a gain per fleet, then 2 policies x 2 fleets
  CHECK(outputs[0].name ==
        "GPU gain dspark-5+async-topk [round-robin, colocated] vs mtp1+static:k=1");
  CHECK(outputs[1].name ==
        "GPU gain dspark-5+async-topk [least-loaded, colocated] vs mtp1+static:k=1");
  CHECK(outputs[3].name == "GPUs needed, mtp1+static:k=1 [least-loaded, colocated]");
  PlanResult r;  // policy-major: mtp1 rr, mtp1 ll, dspark rr, dspark ll (one GPU a replica)
  r.plans = {row(4, 1), row(6, 1), row(2, 1), row(3, 1)};
  const auto values = plan_output_values(r, plan_groups(c.options), outputs);
  CHECK(values[0] == Approx(2.0));  // 4 / 2
  CHECK(values[1] == Approx(2.0));  // 6 / 3
  CHECK(values[3] == 6);
  CHECK(values[5] == 3);
}

TEST_CASE("plan outputs: without a baseline there is nothing to compare, only GPUs") {
  PlanConfig c = three_policies();
  c.baseline.reset();
  const auto outputs = plan_study_outputs(c);
  REQUIRE(outputs.size() == 3);
  for (const auto& o : outputs) CHECK_FALSE(o.is_comparison());
}
