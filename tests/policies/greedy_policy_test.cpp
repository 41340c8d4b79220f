// Algorithm 1 (greedy with early stop): the paper's worked examples exactly, tie-breaking, the
// staircase trap, and agreement with a plain full-sort reference on random batches.
#include "policies/greedy_policy.hpp"

#include <numeric>
#include <random>

#include <catch2/catch.hpp>

#include "policies/policy_registry.hpp"
#include "policy_test_util.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {

std::vector<int> run_greedy(const OwnedBatch& b, const SpsTable& sps) {
  GreedyPolicy policy(true);
  std::vector<int> lengths(b.ids.size(), -1);
  policy.schedule(b.view(), sps, lengths);
  return lengths;
}

SpsTable saturating_sps() {  // SPS(B) = 8000 / (96 + B)
  std::vector<double> v(4096);
  for (std::size_t b = 1; b <= v.size(); ++b) v[b - 1] = 8000.0 / (96.0 + static_cast<double>(b));
  return SpsTable(v);
}

}  // namespace

TEST_CASE("greedy: Appendix A, one request with c1 = 0.8 stops at length 0") {
  // SPS(1) = 1.0, SPS(2) = 0.5, SPS(3) = 0.45: Θ0 = 1.0 > Θ1 = 1.8 * 0.5 = 0.9, so the early stop
  // fires before c2 matters, whichever value it takes.
  const SpsTable sps(std::vector<double>{1.0, 0.5, 0.45});
  for (float c2 : {0.9f, 0.0f}) {
    INFO("c2 = " << c2);
    CHECK(run_greedy(uniform_batch(1, {0.8f, c2}), sps) == std::vector<int>{0});
  }
}

TEST_CASE("greedy: load adaptivity, mean length exactly 5 at R=4, 3 at R=32, 1 at R=256") {
  const SpsTable sps = saturating_sps();
  const std::vector<float> row = {0.9f, 0.85f, 0.8f, 0.7f, 0.6f, 0.5f};
  for (const auto& [requests, mean] : {std::pair{4, 5}, std::pair{32, 3}, std::pair{256, 1}}) {
    INFO("R = " << requests);
    const auto lengths = run_greedy(uniform_batch(requests, row), sps);
    CHECK(std::accumulate(lengths.begin(), lengths.end(), 0) == mean * requests);
    // Identical requests: every one gets the same length (ties go level by level).
    CHECK(std::count(lengths.begin(), lengths.end(), mean) == requests);
  }
}

TEST_CASE("greedy: all-zero confidences give length 0 everywhere") {
  const SpsTable sps = saturating_sps();
  CHECK(run_greedy(uniform_batch(8, std::vector<float>(6, 0.0f)), sps) == std::vector<int>(8, 0));
  // Idle engine (flat SPS): zero-survival positions are still never admitted.
  const SpsTable flat(std::vector<double>(64, 100.0));
  CHECK(run_greedy(uniform_batch(3, {0.9f, 0.0f, 0.9f}), flat) == std::vector<int>(3, 1));
}

TEST_CASE("greedy: survival ties go to the earlier position, then to the lower request id") {
  // SPS flat for B <= R + 2, then a cliff: greedy admits exactly two candidates.
  std::vector<double> values(16, 0.01);
  for (int b = 1; b <= 4; ++b) values[b - 1] = 1.0;
  const SpsTable two_admissions(values);
  // id 3 (index 0) survivals {1.0, 0.9}, id 5 (index 1) {0.9, 0.45}: after (id 3, j=1), the tie at
  // 0.9 between (id 3, j=2) and (id 5, j=1) goes to the earlier position, despite id 3 being lower.
  OwnedBatch b;
  b.gamma = 2;
  b.ids = {3, 5};
  b.confidences = {1.0f, 0.9f, 0.9f, 0.5f};
  b.contexts = {10, 10};
  CHECK(run_greedy(b, two_admissions) == std::vector<int>{1, 1});
  // Equal survival and position: the lower id wins even when it sits later in the batch.
  values.assign(16, 0.01);
  for (int b2 = 1; b2 <= 3; ++b2) values[b2 - 1] = 1.0;
  const SpsTable one_admission(values);
  b.ids = {5, 3};
  b.confidences = {0.9f, 0.9f, 0.9f, 0.9f};
  CHECK(run_greedy(b, one_admission) == std::vector<int>{0, 1});
}

TEST_CASE("greedy: a staircase SPS cliff traps the early stop (the global search would jump it)") {
  // SPS(1) = 1, then a cliff to 0.5 that stays flat: Θ1 = 1.9 * 0.5 = 0.95 < Θ0 = 1, so greedy
  // verifies nothing although verifying all three (Θ3 = 3.439 * 0.5 = 1.72) is far better.
  const SpsTable stair(std::vector<double>{1.0, 0.5, 0.5, 0.5});
  CHECK(run_greedy(uniform_batch(1, {0.9f, 0.9f, 0.9f}), stair) == std::vector<int>{0});
}

TEST_CASE("greedy matches the full-sort reference of Algorithm 1 on random batches") {
  std::mt19937_64 rng(99);
  GreedyPolicy policy(true);
  for (int trial = 0; trial < 400; ++trial) {
    const int gamma = 1 + static_cast<int>(rng() % 7);
    const int requests = 1 + static_cast<int>(rng() % 64);
    OwnedBatch b;
    b.gamma = gamma;
    for (int r = 0; r < requests; ++r) b.ids.push_back(static_cast<std::uint64_t>(r * 7 % 101));
    if (trial % 3 == 0) std::shuffle(b.ids.begin(), b.ids.end(), rng);
    for (int i = 0; i < requests * gamma; ++i) {
      b.confidences.push_back(trial % 2 ? static_cast<float>(rng() % 11) / 10.0f
                                        : static_cast<float>(rng() % 1000) / 999.0f);
    }
    b.contexts.assign(requests, 100);
    const SpsTable sps(random_staircase_sps(rng, 512, 6, 0.6, 0.4));
    std::vector<int> lengths(requests, -1);
    policy.schedule(b.view(), sps, lengths);
    INFO("trial " << trial);
    CHECK(lengths == reference_greedy(b.view(), sps));
  }
}

TEST_CASE("greedy equals the reference on gentle staircase SPS") {
  // The shape of a real profile (a 0.2% slowdown per token, a 2% cliff every 8 tokens) and
  // confidences from 0.3 to 1: long admission paths, many candidates admitted per request.
  std::mt19937_64 rng(2024);
  GreedyPolicy policy(true);
  std::vector<double> sps_values(2048);
  double level = 158.0;
  for (std::size_t b = 1; b <= sps_values.size(); ++b) {
    level *= b % 8 == 0 ? 0.98 : 0.998;
    sps_values[b - 1] = level;
  }
  const SpsTable sps(sps_values);
  std::int64_t admitted = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int gamma = 1 + static_cast<int>(rng() % 7);
    const int requests = 1 + static_cast<int>(rng() % 24);
    OwnedBatch b;
    b.gamma = gamma;
    for (int r = 0; r < requests; ++r) b.ids.push_back(static_cast<std::uint64_t>(10 + r));
    if (trial % 4 == 0) std::shuffle(b.ids.begin(), b.ids.end(), rng);
    for (int i = 0; i < requests * gamma; ++i) {
      b.confidences.push_back(0.3f + 0.7f * static_cast<float>(rng() % 1000) / 999.0f);
    }
    b.contexts.assign(requests, 100);
    std::vector<int> lengths(requests, -1);
    policy.schedule(b.view(), sps, lengths);
    admitted += std::accumulate(lengths.begin(), lengths.end(), std::int64_t{0});
    INFO("trial " << trial);
    CHECK(lengths == reference_greedy(b.view(), sps));
  }
  CHECK(admitted > 1000);  // the paths were long, not stopped at the first candidate
}

TEST_CASE("greedy: an admission that ties Θ exactly is not admitted") {
  // R = 1, SPS(1) = 1.25, SPS(2) = 1: admitting c = 0.25 gives Θ = 1.25 · 1 = 1 · 1.25, an exact
  // tie, which Algorithm 1 does not admit (it keeps an admission only if Θ rises).
  const SpsTable sps(std::vector<double>{1.25, 1.0, 1.0});
  GreedyPolicy policy(true);
  const OwnedBatch b = uniform_batch(1, {0.25f, 1.0f});
  std::vector<int> lengths(1, -1);
  policy.schedule(b.view(), sps, lengths);
  CHECK(lengths == std::vector<int>{0});
  CHECK(lengths == reference_greedy(b.view(), sps));
}

TEST_CASE("greedy is synchronous by default and sync= overrides it") {
  CHECK(make_policy(NamedSpec::parse("greedy", "--policy"), PolicyContext{7})->synchronous());
  CHECK_FALSE(make_policy(NamedSpec::parse("greedy:sync=off", "--policy"), PolicyContext{7})
                  ->synchronous());
  CHECK_THROWS_WITH(
      make_policy(NamedSpec::parse("greedy:sync=maybe", "--policy"), PolicyContext{7}),
      Catch::Contains("auto, on, off"));
}
