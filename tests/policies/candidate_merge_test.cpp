// The k-way merge yields exactly the fully sorted admission order, ties included, and
// compute_survivals makes non-increasing survivals whose positive entries form a prefix.
#include "policies/candidate_merge.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "policy_test_util.hpp"

using namespace sparksim;
using namespace sparksim::testing;

TEST_CASE("compute_survivals multiplies left to right, clamps to [0, 1], NaN counts as 0") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> c = {0.8f, 0.9f, 1.5f, -0.2f, 0.7f};
  std::vector<float> s(5);
  CHECK(compute_survivals(c.data(), 5, s.data()) == 3);
  CHECK(s[0] == 0.8f);
  CHECK(s[1] == 0.8f * 0.9f);
  CHECK(s[2] == s[1]);  // 1.5 clamped to 1
  CHECK(s[3] == 0.0f);  // negative clamped to 0
  CHECK(s[4] == 0.0f);
  c = {0.5f, nan, 0.9f};
  CHECK(compute_survivals(c.data(), 3, s.data()) == 1);
  CHECK(s[1] == 0.0f);
}

TEST_CASE("compute_survivals at γ = 7 (its unrolled size) equals the product written out") {
  // Each clamp by hand: 1.5 → 1, -0.2 → 0, NaN → 0; sums and partial sums in double.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const float seventh : {0.6f, -0.2f, nan}) {
    const std::vector<float> c = {0.9f, 1.5f, 0.8f, 0.75f, 0.5f, 0.95f, seventh};
    const float c7 = seventh > 0.0f ? seventh : 0.0f;
    const float a1 = 0.9f, a2 = a1 * 1.0f, a3 = a2 * 0.8f, a4 = a3 * 0.75f, a5 = a4 * 0.5f,
                a6 = a5 * 0.95f, a7 = a6 * c7;
    const std::vector<float> expected = {a1, a2, a3, a4, a5, a6, a7};
    std::vector<float> s(7), copy(7);
    std::vector<double> prefix(8);
    double sum = -1;
    CHECK(compute_survivals(c.data(), 7, s.data(), &sum, prefix.data(), copy.data()) ==
          (c7 > 0.0f ? 7 : 6));
    CHECK(s == expected);
    CHECK(copy == expected);
    double total = 0;
    CHECK(prefix[0] == 0.0);
    for (int k = 0; k < 7; ++k) {
      total += static_cast<double>(expected[static_cast<std::size_t>(k)]);
      CHECK(prefix[static_cast<std::size_t>(k) + 1] == total);
    }
    CHECK(sum == total);
  }
}

namespace {

// A random batch of 1 to 40 requests with 1 to 8 drafts each: ids first_id + id_step·r, shuffled
// on odd trials (re-admitted requests break admission order), and confidences on a coarse grid so
// survivals tie across requests and positions.
OwnedBatch random_tied_batch(std::mt19937_64& rng, int trial, std::uint64_t first_id,
                             std::uint64_t id_step) {
  const int gamma = 1 + static_cast<int>(rng() % 8);
  const int requests = 1 + static_cast<int>(rng() % 40);
  OwnedBatch b;
  b.gamma = gamma;
  for (int r = 0; r < requests; ++r)
    b.ids.push_back(first_id + id_step * static_cast<std::uint64_t>(r));
  if (trial % 2 == 1) std::shuffle(b.ids.begin(), b.ids.end(), rng);
  for (int i = 0; i < requests * gamma; ++i) {
    b.confidences.push_back(static_cast<float>(rng() % 5) / 4.0f);
  }
  b.contexts.assign(requests, 10);
  return b;
}

// A batch's survivals as the policies hand them to CandidateMerge: R×γ values, one row pointer
// and one positive count per request.
struct BatchSurvivals {
  std::vector<float> values;
  std::vector<int> positive;
  std::vector<const float*> rows;
};

BatchSurvivals survivals_of(const OwnedBatch& b) {
  const int requests = static_cast<int>(b.requests());
  BatchSurvivals s{std::vector<float>(b.confidences.size()), std::vector<int>(requests),
                   std::vector<const float*>(requests)};
  for (int r = 0; r < requests; ++r) {
    s.positive[r] = compute_survivals(&b.confidences[r * b.gamma], b.gamma, &s.values[r * b.gamma]);
    s.rows[r] = &s.values[r * b.gamma];
  }
  return s;
}

// Pops `merge` to the end, checking each candidate against `expected` in order.
void check_merge_yields(CandidateMerge& merge, const std::vector<RefCandidate>& expected,
                        int trial) {
  std::size_t i = 0;
  for (; !merge.empty(); ++i) {
    REQUIRE(i < expected.size());
    const Candidate c = merge.top();
    INFO("trial " << trial << " candidate " << i);
    CHECK(c.request == expected[i].request);
    CHECK(c.position == expected[i].position);
    CHECK(c.survival == static_cast<double>(expected[i].survival));
    merge.advance();
  }
  CHECK(i == expected.size());
}

}  // namespace

TEST_CASE("merge order equals the full stable sort on random batches with many ties") {
  // Batches of 1 to 40 requests exercise both the linear scan (small R) and the heap.
  std::mt19937_64 rng(7);
  CandidateMerge merge;
  for (int trial = 0; trial < 300; ++trial) {
    const OwnedBatch b = random_tied_batch(rng, trial, 1000, 3);
    const std::int64_t requests = b.requests();
    CAPTURE(requests);
    const BatchSurvivals s = survivals_of(b);
    merge.reset(s.rows, s.positive, b.ids);
    check_merge_yields(merge, reference_order(b.view()), trial);
  }
}

TEST_CASE("admit_first admits exactly the first k of the full sorted order, ties included") {
  std::mt19937_64 rng(11);
  CandidateMerge merge;
  for (int trial = 0; trial < 200; ++trial) {
    const int gamma = 1 + static_cast<int>(rng() % 8);
    const int requests = 1 + static_cast<int>(rng() % 40);
    OwnedBatch b;
    b.gamma = gamma;
    for (int r = 0; r < requests; ++r) b.ids.push_back(1000 + 3 * static_cast<std::uint64_t>(r));
    std::shuffle(b.ids.begin(), b.ids.end(), rng);
    // A coarse grid, so the k-th survival usually ties with others.
    for (int i = 0; i < requests * gamma; ++i) {
      b.confidences.push_back(static_cast<float>(rng() % 5) / 4.0f);
    }
    b.contexts.assign(requests, 10);
    std::vector<float> s(b.confidences.size() + 4);  // admit_first may read 3 floats past a row
    std::vector<const float*> rows(requests);
    for (int r = 0; r < requests; ++r) {
      compute_survivals(&b.confidences[r * gamma], gamma, &s[r * gamma]);
      rows[r] = &s[r * gamma];
    }
    const auto expected = reference_order(b.view());
    for (std::size_t k = 1; k <= expected.size(); ++k) {
      // The oracle: each request's length is the last position it has among the first k.
      std::vector<int> want(requests, 0);
      for (std::size_t i = 0; i < k; ++i) {
        want[expected[i].request] =
            std::max<int>(want[expected[i].request], static_cast<int>(expected[i].position));
      }
      std::vector<int> lengths(requests, -1);
      merge.admit_first(rows, gamma, b.ids, static_cast<std::int64_t>(k), expected[k - 1].survival,
                        lengths);
      INFO("trial " << trial << " k " << k);
      CHECK(lengths == want);
    }
  }
}

TEST_CASE("merge from per-request offsets is the full order minus the skipped") {
  std::mt19937_64 rng(11);
  CandidateMerge merge;
  for (int trial = 0; trial < 300; ++trial) {
    const OwnedBatch b = random_tied_batch(rng, trial, 500, 7);
    const BatchSurvivals s = survivals_of(b);
    std::vector<int> first(s.positive.size());
    for (std::size_t r = 0; r < first.size(); ++r) {
      first[r] = static_cast<int>(rng() % static_cast<std::uint64_t>(s.positive[r] + 1));
    }
    std::vector<RefCandidate> expected;
    for (const RefCandidate& c : reference_order(b.view())) {
      if (static_cast<int>(c.position) > first[c.request]) expected.push_back(c);
    }
    merge.reset(s.rows, first, s.positive, b.ids);
    check_merge_yields(merge, expected, trial);
  }
}

TEST_CASE("merge: equal survival goes to the earlier position, then to the lower id") {
  // Request ids 5 (index 0) and 3 (index 1). Survivals: id 5 = {0.9, 0.45}, id 3 = {1, 0.9}.
  // Order: (3,1) 1.0; then 0.9 ties between (5,1) and (3,2): position 1 first; then (3,2), (5,2).
  std::vector<float> s = {0.9f, 0.45f, 1.0f, 0.9f};
  std::vector<int> positive = {2, 2};
  std::vector<std::uint64_t> ids = {5, 3};
  CandidateMerge merge;
  std::vector<const float*> rows = {&s[0], &s[2]};
  merge.reset(rows, positive, ids);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
  for (; !merge.empty(); merge.advance())
    got.emplace_back(merge.top().request, merge.top().position);
  CHECK(got ==
        std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 1}, {0, 1}, {1, 2}, {0, 2}});
  // Same survival and position: the lower id first, wherever it sits in the batch.
  s = {0.9f, 0.9f};
  positive = {1, 1};
  rows = {&s[0], &s[1]};
  merge.reset(rows, positive, ids);
  CHECK(merge.top().request == 1);  // id 3
}

TEST_CASE("merge: a batch with no positive survival is empty at once, in both modes") {
  CandidateMerge merge;
  for (std::size_t requests : {std::size_t{0}, std::size_t{3}, std::size_t{40}}) {
    std::vector<float> s(requests * 2, 0.0f);
    std::vector<int> positive(requests, 0);
    std::vector<const float*> rows(requests, s.data());
    std::vector<std::uint64_t> ids(requests);
    for (std::size_t r = 0; r < requests; ++r) ids[r] = r;
    merge.reset(rows, positive, ids);
    CHECK(merge.empty());
  }
}
