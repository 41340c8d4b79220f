// goodput: the batch-wide length maximising R·E_k·SPS(R(1+k)), and the acceptance estimate learnt
// from context growth (accepted = Δcontext - 1; a rejection iff accepted < ℓ).
#include "policies/goodput_policy.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "policies/policy_registry.hpp"
#include "policy_test_util.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {
std::vector<int> step(GoodputPolicy& policy, const OwnedBatch& b, const SpsTable& sps) {
  std::vector<int> lengths(b.ids.size(), -1);
  policy.schedule(b.view(), sps, lengths);
  return lengths;
}
}  // namespace

TEST_CASE("goodput: idle engine verifies the whole block, a steep cost curve verifies nothing") {
  const SpsTable flat(std::vector<double>(64, 100.0));
  GoodputPolicy policy(0.7, 0.05, true);
  CHECK(step(policy, uniform_batch(3, {0.0f, 0.0f, 0.0f, 0.0f}), flat) == std::vector<int>(3, 4));
  // SPS ∝ 1/B^2: one more verify token per request costs more than any draft can return.
  std::vector<double> steep(64);
  for (std::size_t b = 1; b <= steep.size(); ++b)
    steep[b - 1] = 1000.0 / static_cast<double>(b * b);
  GoodputPolicy fresh(0.7, 0.05, true);
  CHECK(step(fresh, uniform_batch(3, {0.9f, 0.9f, 0.9f, 0.9f}), SpsTable(steep)) ==
        std::vector<int>(3, 0));
}

TEST_CASE("goodput: picks the k maximising R * E_k * SPS(R (1 + k))") {
  // R = 1, α = 0.5 (prior): E_k = 1, 1.5, 1.75, 1.875. SPS(1..4) = 10, 7, 5.5, 4.2:
  // goodput 10, 10.5, 9.625, 7.875: k = 1.
  const SpsTable sps(std::vector<double>{10, 7, 5.5, 4.2});
  GoodputPolicy policy(0.5, 0.05, true);
  CHECK(step(policy, uniform_batch(1, {0.1f, 0.1f, 0.1f}), sps) == std::vector<int>{1});
}

TEST_CASE("goodput: acceptance is learnt from context growth, censored at the verified length") {
  const SpsTable flat(std::vector<double>(64, 100.0));
  GoodputPolicy policy(0.7, 1.0, true);  // ema weight 1: the estimate is the last step's ratio
  CHECK(policy.acceptance_estimate() == Approx(0.7));
  OwnedBatch b = uniform_batch(2, {0.5f, 0.5f, 0.5f, 0.5f});
  b.contexts = {100, 200};
  CHECK(step(policy, b, flat) == std::vector<int>(2, 4));
  // Request 0 committed 3 tokens (2 accepted, then a rejection); request 1 committed 5 (all 4
  // accepted, no rejection): accepted 6, rejections 1.
  b.contexts = {103, 205};
  step(policy, b, flat);
  CHECK(policy.acceptance_estimate() == Approx(6.0 / 7.0));
  // A request that left and came back (preempted) teaches nothing about the step it missed.
  policy.on_request_left(0);
  b.contexts = {10, 206};  // request 1: 0 accepted of 4, one rejection
  step(policy, b, flat);
  CHECK(policy.acceptance_estimate() == Approx(0.0));
  // With α = 0 the flat curve still ties at every k: the smallest (0) wins, and ℓ = 0 teaches
  // nothing, so the estimate holds.
  b.contexts = {11, 207};
  CHECK(step(policy, b, flat) == std::vector<int>(2, 0));
  b.contexts = {12, 208};
  step(policy, b, flat);
  CHECK(policy.acceptance_estimate() == Approx(0.0));
}

TEST_CASE("goodput: moving average blends steps with weight ema") {
  const SpsTable flat(std::vector<double>(64, 100.0));
  GoodputPolicy policy(0.5, 0.5, true);  // accepted avg 0.5, rejected avg 0.5
  OwnedBatch b = uniform_batch(1, {0.5f, 0.5f});
  b.contexts = {100};
  step(policy, b, flat);  // ℓ = 2
  b.contexts = {103};     // 2 accepted, none rejected: avgs become 1.25 and 0.25
  step(policy, b, flat);
  CHECK(policy.acceptance_estimate() == Approx(1.25 / 1.5));
}

TEST_CASE("goodput: parameters validated, synchronous by default") {
  CHECK(make_policy(NamedSpec::parse("goodput", "--policy"), PolicyContext{5})->synchronous());
  CHECK_THROWS_WITH(make_policy(NamedSpec::parse("goodput:ema=0", "--policy"), PolicyContext{5}),
                    Catch::Contains("ema=0 is out of range"));
  CHECK_THROWS_WITH(make_policy(NamedSpec::parse("goodput:prior=2", "--policy"), PolicyContext{5}),
                    Catch::Contains("prior=2 is out of range"));
}
