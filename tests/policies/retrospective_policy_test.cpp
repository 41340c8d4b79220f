// The unsafe retrospective policy: Appendix A's numbers and agreement with a full-sort reference
// of the global search (no early stop).
#include "policies/retrospective_policy.hpp"

#include <random>

#include <catch2/catch.hpp>

#include "policy_test_util.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {
std::vector<int> run_retro(const OwnedBatch& b, const SpsTable& sps) {
  RetrospectivePolicy policy(true);
  std::vector<int> lengths(b.ids.size(), -1);
  policy.schedule(b.view(), sps, lengths);
  return lengths;
}
}  // namespace

TEST_CASE("retrospective: Appendix A, length 2 when c2 = 0.9 and 0 when c2 = 0") {
  // Θ0 = 1.0, Θ1 = 0.9, Θ2 = (1 + 0.8 + 0.72) * 0.45 = 1.134 when c2 = 0.9: the search looks past
  // the dip and admits both drafts; with c2 = 0 only Θ1 = 0.9 < 1 is on offer, so nothing.
  const SpsTable sps(std::vector<double>{1.0, 0.5, 0.45});
  CHECK(run_retro(uniform_batch(1, {0.8f, 0.9f}), sps) == std::vector<int>{2});
  CHECK(run_retro(uniform_batch(1, {0.8f, 0.0f}), sps) == std::vector<int>{0});
}

TEST_CASE("retrospective: all-zero confidences give 0, a staircase cliff is jumped") {
  const SpsTable stair(std::vector<double>{1.0, 0.5, 0.5, 0.5});
  CHECK(run_retro(uniform_batch(4, {0.0f, 0.0f, 0.0f}), stair) == std::vector<int>(4, 0));
  CHECK(run_retro(uniform_batch(1, {0.9f, 0.9f, 0.9f}), stair) == std::vector<int>{3});
}

TEST_CASE("retrospective matches the full-sort global search on random batches") {
  std::mt19937_64 rng(5);
  RetrospectivePolicy policy(true);
  for (int trial = 0; trial < 300; ++trial) {
    const int gamma = 1 + static_cast<int>(rng() % 7);
    const int requests = 1 + static_cast<int>(rng() % 48);
    OwnedBatch b;
    b.gamma = gamma;
    for (int r = 0; r < requests; ++r) b.ids.push_back(static_cast<std::uint64_t>(r));
    std::shuffle(b.ids.begin(), b.ids.end(), rng);
    for (int i = 0; i < requests * gamma; ++i) {
      b.confidences.push_back(static_cast<float>(rng() % 11) / 10.0f);
    }
    b.contexts.assign(requests, 100);
    const SpsTable sps(random_staircase_sps(rng, 512, 5, 0.5, 0.5));
    const auto order = reference_order(b.view());
    const auto expected =
        lengths_of_prefix(order, requests, reference_global_count(order, requests, sps));
    std::vector<int> lengths(requests, -1);
    policy.schedule(b.view(), sps, lengths);
    INFO("trial " << trial);
    CHECK(lengths == expected);
  }
}
