// async-topk: hand-computed lag behaviour (Appendix A's SPS), new requests as survival 1, the
// staircase jump early-stop greedy cannot make, current-step ranking and ties, forgetting, and
// agreement with a plain reference over random multi-step runs with requests joining, leaving and
// sitting steps out (which also checks the reuse of an earlier step's candidate order).
#include "policies/async_topk_policy.hpp"

#include <map>
#include <random>

#include <catch2/catch.hpp>

#include "policies/policy_registry.hpp"
#include "policy_test_util.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {

OwnedBatch batch(int gamma, std::vector<std::uint64_t> ids, std::vector<float> confidences) {
  OwnedBatch b;
  b.gamma = gamma;
  b.ids = std::move(ids);
  b.confidences = std::move(confidences);
  b.contexts.assign(b.ids.size(), 100);
  return b;
}

std::vector<int> step(AsyncTopKPolicy& policy, const OwnedBatch& b, const SpsTable& sps) {
  std::vector<int> lengths(b.ids.size(), -1);
  policy.schedule(b.view(), sps, lengths);
  return lengths;
}

}  // namespace

TEST_CASE("async-topk: capacity comes from the confidences of lag=2 steps earlier") {
  // Appendix A's SPS: Θ0 = 1; survivals {1, 1} give Θ1 = 1.0 (not better), Θ2 = 3 * 0.45 = 1.35;
  // {0.8, 0} gives Θ1 = 0.9 only; {0.8, 0.72} gives Θ2 = 2.52 * 0.45 = 1.134.
  const SpsTable sps(std::vector<double>{1.0, 0.5, 0.45});
  AsyncTopKPolicy policy(2, 2, false);
  // Steps 0 and 1: nothing from two steps earlier, so survival 1: K = 2; the current step has one
  // positive candidate at step 0 and two at step 1.
  CHECK(step(policy, batch(2, {7}, {0.8f, 0.0f}), sps) == std::vector<int>{1});
  CHECK(policy.last_capacity() == 2);
  CHECK(step(policy, batch(2, {7}, {0.8f, 0.9f}), sps) == std::vector<int>{2});
  CHECK(policy.last_capacity() == 2);
  // Step 2 sees step 0's {0.8, 0}: K = 0, so nothing is verified although the current drafts are
  // the ones retrospective would verify in full.
  CHECK(step(policy, batch(2, {7}, {0.8f, 0.9f}), sps) == std::vector<int>{0});
  CHECK(policy.last_capacity() == 0);
  // Step 3 sees step 1's {0.8, 0.72}: K = 2, of which the current step can fill only one.
  CHECK(step(policy, batch(2, {7}, {0.8f, 0.0f}), sps) == std::vector<int>{1});
  CHECK(policy.last_capacity() == 2);
  // Leaving forgets: back after a preemption, the request counts as new again.
  CHECK(policy.remembered_requests() == 1);
  policy.on_request_left(7);
  CHECK(policy.remembered_requests() == 0);
  CHECK(step(policy, batch(2, {7}, {0.8f, 0.9f}), sps) == std::vector<int>{2});
  CHECK(policy.last_capacity() == 2);
}

TEST_CASE("async-topk: the global search jumps a staircase cliff that traps greedy") {
  // SPS(1) = 1 then flat 0.5: the first admission lowers Θ (1.9 * 0.5 = 0.95 < 1), which stops
  // greedy at 0; the whole path reaches Θ3 = 3.439 * 0.5 = 1.72, so K = 3.
  const SpsTable stair(std::vector<double>{1.0, 0.5, 0.5, 0.5});
  AsyncTopKPolicy policy(3, 2, false);
  for (int s = 0; s < 4; ++s) {
    INFO("step " << s);
    CHECK(step(policy, batch(3, {1}, {0.9f, 0.9f, 0.9f}), stair) == std::vector<int>{3});
    CHECK(policy.last_capacity() == 3);
  }
  auto greedy = make_policy(NamedSpec::parse("greedy", "--policy"), PolicyContext{3});
  std::vector<int> lengths(1, -1);
  greedy->schedule(batch(3, {1}, {0.9f, 0.9f, 0.9f}).view(), stair, lengths);
  CHECK(lengths == std::vector<int>{0});
}

TEST_CASE("async-topk: a new request counts as survival 1 in K, the slots go by current rank") {
  // lag = 1. SPS(1..5) = 1, 1, 0.7, 0.6, 0.5.
  const SpsTable sps(std::vector<double>{1.0, 1.0, 0.7, 0.6, 0.5});
  AsyncTopKPolicy policy(2, 1, false);
  // Step 0, request 1 alone and new: survivals {1, 1}: Θ1 = 2 * 1, Θ2 = 3 * 0.7 = 2.1: K = 2.
  CHECK(step(policy, batch(2, {1}, {0.5f, 0.0f}), sps) == std::vector<int>{1});
  CHECK(policy.last_capacity() == 2);
  // Step 1: request 1 brings {0.5, 0} from step 0, request 2 is new: {1, 1}. Path 1, 1, 0.5:
  // Θ0 = 2, Θ1 = 3 * 0.7 = 2.1, Θ2 = 4 * 0.6 = 2.4, Θ3 = 4.5 * 0.5 = 2.25: K = 2. Current
  // survivals: request 1 {0.9, 0.81}, request 2 {0.8, 0.64}: both slots go to request 1.
  CHECK(step(policy, batch(2, {1, 2}, {0.9f, 0.9f, 0.8f, 0.8f}), sps) == std::vector<int>{2, 0});
  CHECK(policy.last_capacity() == 2);
}

TEST_CASE("async-topk: current ties go to the earlier position, then to the lower id") {
  // R = 2, γ = 2, both new: survivals all 1; SPS flat to B = 4 then a cliff: K = 2.
  std::vector<double> values(8, 0.01);
  for (int b = 1; b <= 4; ++b) values[b - 1] = 1.0;
  const SpsTable sps(values);
  {
    AsyncTopKPolicy policy(2, 2, false);
    // id 3 {1.0, 0.9}, id 5 {0.9, 0.45}: (3,1) first, then 0.9 tie: (5,1) beats (3,2).
    CHECK(step(policy, batch(2, {3, 5}, {1.0f, 0.9f, 0.9f, 0.5f}), sps) == std::vector<int>{1, 1});
  }
  {
    AsyncTopKPolicy policy(2, 2, false);
    // Identical rows: both first positions (0.9) rank before either second one (0.81).
    CHECK(step(policy, batch(2, {5, 3}, {0.9f, 0.9f, 0.9f, 0.9f}), sps) == std::vector<int>{1, 1});
  }
  {
    // Capacity 1 (cliff after B = 3): the lower id wins the tie wherever it sits in the batch.
    values.assign(8, 0.01);
    for (int b = 1; b <= 3; ++b) values[b - 1] = 1.0;
    AsyncTopKPolicy policy(2, 2, false);
    CHECK(step(policy, batch(2, {5, 3}, {0.9f, 0.9f, 0.9f, 0.9f}), SpsTable(values)) ==
          std::vector<int>{0, 1});
  }
}

TEST_CASE("async-topk: all-zero confidences give 0 even with a large capacity") {
  const SpsTable flat(std::vector<double>(64, 100.0));
  AsyncTopKPolicy policy(4, 2, false);
  OwnedBatch b = uniform_batch(5, std::vector<float>(4, 0.0f));
  for (int s = 0; s < 3; ++s) CHECK(step(policy, b, flat) == std::vector<int>(5, 0));
}

TEST_CASE("async-topk matches a plain reference over random runs with churn") {
  std::mt19937_64 rng(2024);
  // Staircase curves (the search runs, ties at the K-th survival: confidences in tenths) and a
  // gentle one with slack (the whole path usually wins).
  struct Config {
    int lag;
    bool gentle;
    std::size_t cap;  // most requests running
    int joins;        // most requests joining per step
  };
  for (const Config& config :
       {Config{1, false, 60, 4}, Config{2, false, 60, 4}, Config{3, false, 60, 4},
        Config{2, true, 8, 4}, Config{2, false, 800, 160}}) {
    const auto [lag, gentle, cap, max_joins] = config;
    const bool large = cap > 100;
    const int gamma = 5;
    AsyncTopKPolicy policy(gamma, lag, false);
    std::map<std::uint64_t, std::map<std::int64_t, std::vector<float>>> history;  // id → step → c
    std::vector<std::uint64_t> running;
    std::uint64_t next_id = 0;
    std::size_t interior = 0;  // steps whose search stopped strictly inside the lagged path
    std::vector<double> sps_values(large ? 5000 : 400);
    double level = 300.0;
    for (std::size_t i = 0; i < sps_values.size(); ++i) {
      if (rng() % (large ? 40 : 4) == 0) {
        level *= 0.7 + 0.3 * static_cast<double>(rng() % 100) / 100.0;
      }
      sps_values[i] = gentle || large ? 8000.0 / (96.0 + static_cast<double>(i + 1)) : level;
    }
    const SpsTable sps(sps_values);
    for (std::int64_t t = 0; t < 300; ++t) {
      // Churn: some requests leave (the policy is told), some join at the end.
      for (std::size_t i = 0; i < running.size();) {
        if (rng() % 10 == 0) {
          policy.on_request_left(running[i]);
          history.erase(running[i]);
          running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
          ++i;
        }
      }
      const int joins = static_cast<int>(rng() % static_cast<std::uint64_t>(max_joins));
      for (int j = 0; j < joins && running.size() < cap; ++j) running.push_back(next_id++);
      if (running.empty()) running.push_back(next_id++);
      // Some requests seen before sit a step out without leaving (as in a chunked-prefill pause):
      // the policy is not told, and must not take their older history for this step's.
      std::vector<std::uint64_t> batch_ids;
      for (std::uint64_t id : running) {
        if (history.count(id) == 0 || rng() % 8 != 0) batch_ids.push_back(id);
      }
      if (batch_ids.empty()) batch_ids.push_back(running.front());
      OwnedBatch current;
      current.gamma = gamma;
      current.ids = batch_ids;
      current.contexts.assign(batch_ids.size(), 100);
      OwnedBatch lagged = current;
      for (std::uint64_t id : batch_ids) {
        std::vector<float> c(gamma);
        for (auto& x : c) x = static_cast<float>(rng() % 11) / 10.0f;
        current.confidences.insert(current.confidences.end(), c.begin(), c.end());
        const auto& h = history[id];
        const auto it = h.find(t - lag);
        const std::vector<float> ones(gamma, 1.0f);
        const auto& old = it != h.end() ? it->second : ones;
        lagged.confidences.insert(lagged.confidences.end(), old.begin(), old.end());
        history[id][t] = c;
      }
      const auto requests = current.requests();
      const auto lagged_order = reference_order(lagged.view());
      const std::size_t capacity = reference_global_count(lagged_order, requests, sps);
      if (capacity > 0 && capacity < lagged_order.size()) ++interior;
      const auto order = reference_order(current.view());
      const auto expected = lengths_of_prefix(order, requests, std::min(capacity, order.size()));
      std::vector<int> lengths(batch_ids.size(), -1);
      policy.schedule(current.view(), sps, lengths);
      INFO("lag " << lag << " gentle " << gentle << " step " << t);
      REQUIRE(policy.last_capacity() == static_cast<std::int64_t>(capacity));
      REQUIRE(lengths == expected);
    }
    CHECK(policy.remembered_requests() == running.size());
    if (!gentle) CHECK(interior > 50);  // the lagged order, not just its length, decided K
  }
}

TEST_CASE("async-topk: asynchronous by default, lag validated") {
  CHECK_FALSE(
      make_policy(NamedSpec::parse("async-topk", "--policy"), PolicyContext{5})->synchronous());
  CHECK(make_policy(NamedSpec::parse("async-topk:lag=3,sync=on", "--policy"), PolicyContext{5})
            ->synchronous());
  CHECK_THROWS_WITH(make_policy(NamedSpec::parse("async-topk:lag=0", "--policy"), PolicyContext{5}),
                    Catch::Contains("lag=0 is out of range"));
}
