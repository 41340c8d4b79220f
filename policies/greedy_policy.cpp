// Algorithm 1: greedy admission by survival with the early-stopping break.
//
// Ordering every candidate (a k-way merge) dominated this policy's cost, so schedule() first
// finds, without ordering anything, the candidates Algorithm 1 must admit wherever they fall in
// the order: admitting survival a at B verify tokens raises Θ = τ·SPS(B) iff
// a > τ·(SPS(B)/SPS(B+1) − 1), and along the whole path τ <= R + Σ survivals and B stays in
// [R, R + N − 1], so every candidate above T = (R + Σ)·(max ratio − 1) passes its test. Those
// form a prefix of each request (survival never grows along a request) and come first in the
// order, so the early stop cannot happen before them. Only the rest are ordered and walked with
// the early stop from the state after the sure admissions. The walk needs their values only (τ and
// Θ do not depend on who owns a survival), so the values are taken in descending order (a few
// sorted whole by the sorting network; many taken one at a time from a tournament over the rows'
// runs, since the walk stops long before the tail) and the m admitted are those at or above the
// m-th value, counted per request without ordering; when the m-th value ties with the next, only
// the tied candidates are ordered, by the order's tie-breaks. The answer is the reference's
// exactly: the bound carries a relative margin far above rounding, and a walked comparison within
// kTieMargin of a tie (where summing τ in row order instead of the reference's sorted order could
// flip it) reruns the reference search.
#include "policies/greedy_policy.hpp"

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "common/count_above.hpp"
#include "policies/admission_search.hpp"
#include "policies/run_tournament.hpp"
#include "policies/sorting_network.hpp"

namespace sparksim {

namespace {
constexpr double kBoundMargin = 1e-9;  // relative slack on the sure-admission bound
constexpr double kTieMargin = 1e-12;   // relative gap below which a walked decision is redone
// Up to this many remaining candidates are sorted whole; beyond, the lazy merge, which orders only
// the few the walk looks at before it stops, costs less than sorting them all.
constexpr std::int64_t kSortedWalkMax = 64;

template <typename T>
void grow(std::vector<T>& v, std::size_t size) {
  if (v.size() < size) v.resize(size);
}
static_assert(kSortedWalkMax <= static_cast<std::int64_t>(kNetworkSortMax));
}  // namespace

void GreedyPolicy::schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) {
  const auto requests = static_cast<std::size_t>(view.requests);
  const auto gamma = static_cast<std::size_t>(view.gamma);
  // Padded: count_above reads up to 3 floats past a row, the rest's copy up to γ + 3 past its
  // start.
  // Scratch grows only (a resize per step and vector was a measurable share of a small step).
  grow(survivals_, requests * gamma + gamma + 4);
  grow(prefix_, requests * (gamma + 1));
  grow(rows_, requests);
  grow(positive_, requests);
  grow(sure_, requests);
  const std::span<const float* const> rows(rows_.data(), requests);
  const std::span<const int> positive(positive_.data(), requests);
  const auto ids = view.request_ids.first(requests);
  std::int64_t candidates = 0;
  double survival_sum = 0;
  for (std::size_t r = 0; r < requests; ++r) {
    rows_[r] = &survivals_[r * gamma];
    double sum = 0;
    positive_[r] = compute_survivals(&view.confidences[r * gamma], view.gamma,
                                     &survivals_[r * gamma], &sum, &prefix_[r * (gamma + 1)]);
    candidates += positive_[r];
    survival_sum += sum;
  }
  if (candidates == 0) {
    std::fill(lengths.begin(), lengths.begin() + view.requests, 0);
    return;
  }

  const double ratio = sps.max_step_ratio(view.requests, view.requests + candidates - 1);
  const double growth = ratio * (1 + kBoundMargin) - 1;
  // (A NaN growth gives a NaN bound, which nothing clears: then everything is walked.)
  const double bound = growth <= 0 ? 0.0
                                   : (static_cast<double>(view.requests) + survival_sum) *
                                         (1 + kBoundMargin) * growth;
  std::int64_t sure_count = 0;
  std::int64_t rest = 0;
  double sure_sum = 0;
  // The bound as a float rounded up (count_above compares floats): a survival above it is above the
  // double bound too (one between the two is merely left to the walk). Counting the sure prefix
  // this way has no data-dependent branch; its sum comes from the row's partial sums. No survival
  // exceeds 1, so a bound of 1 or more (or NaN) admits nothing here, and is not converted: a double
  // beyond float's range has no float value.
  float bound_f = 2.0f;
  if (bound < 1.0) {
    bound_f = static_cast<float>(bound);
    if (static_cast<double>(bound_f) < bound) {
      bound_f = std::nextafter(bound_f, std::numeric_limits<float>::infinity());
    }
  }
  for (std::size_t r = 0; r < requests; ++r) {
    const int j = count_above(rows_[r], view.gamma, bound_f);
    sure_sum += prefix_[r * (gamma + 1) + static_cast<std::size_t>(j)];
    sure_[r] = j;
    lengths[r] = j;
    sure_count += j;
    rest += positive_[r] - j;
  }
  if (rest == 0) return;

  std::int64_t batch = view.requests + sure_count;
  double tau = static_cast<double>(view.requests) + sure_sum;
  double best = tau * sps.steps_per_s(batch);
  // One step of the early-stop walk, shared by both walks below: admit (τ, B and the best Θ
  // move on), stop, or too close to call with τ summed in another order (or not finite), where
  // the reference search decides.
  enum class Step { kAdmit, kStop, kTooClose };
  const auto walk = [&](double survival) {
    const double theta = (tau + survival) * sps.steps_per_s(batch + 1);
    if (!(std::abs(theta - best) > kTieMargin * std::abs(best))) return Step::kTooClose;
    if (!(theta > best)) return Step::kStop;
    best = theta;
    tau += survival;
    ++batch;
    return Step::kAdmit;
  };
  const auto reference_search = [&] {
    merge_.reset(rows, positive, ids);
    early_stop_search(merge_, view.requests, sps, lengths);
  };
  // Each row's rest copied as a whole number of 4-float blocks covering γ, a trip count that does
  // not vary (a copy loop sized by each row's count mispredicted its exit); the floats past the
  // count are overwritten by the next row or cut off below. Many are walked as runs, each row's
  // followed by a 0 (what the tournament takes for a spent run); a few, sorted whole, back to back.
  const bool many = rest > kSortedWalkMax;
  const std::ptrdiff_t blocks = (view.gamma + 3) / 4;
  grow(rest_, static_cast<std::size_t>(rest) + requests + static_cast<std::size_t>(4 * blocks));
  grow(run_starts_, requests);
  float* const values = rest_.data();
  float* end = values;
  for (std::size_t r = 0; r < requests; ++r) {
    const float* from = rows_[r] + sure_[r];
    for (std::ptrdiff_t b = 0; b < blocks; ++b) {
      std::memcpy(end + 4 * b, from + 4 * b, 4 * sizeof(float));
    }
    run_starts_[r] = static_cast<std::uint32_t>(end - values);
    end += positive_[r] - sure_[r];
    *end = 0.0f;
    end += many ? 1 : 0;
  }
  // The walk takes the values in descending order: a few sorted whole, many taken one at a time
  // from a tournament over the rows' runs (the walk usually stops a few in, long before the tail).
  const auto rest_count = static_cast<std::size_t>(rest);
  std::size_t admitted = 0;
  float last = 0;
  bool tied_with_next = false;
  if (!many) {
    sort_few_descending(values, rest_count);
    for (; admitted < rest_count; ++admitted) {
      const Step step = walk(values[admitted]);
      if (step == Step::kTooClose) return reference_search();
      if (step == Step::kStop) break;
    }
    if (admitted == 0) return;
    last = values[admitted - 1];
    tied_with_next = admitted < rest_count && values[admitted] == last;
  } else {
    tournament_.reset(values, std::span<const std::uint32_t>(run_starts_.data(), requests));
    for (; tournament_.top() > 0.0f; ++admitted) {
      const Step step = walk(tournament_.top());
      if (step == Step::kTooClose) return reference_search();
      if (step == Step::kStop) break;
      last = tournament_.top();
      tournament_.pop();
    }
    if (admitted == 0) return;
    tied_with_next = tournament_.top() == last;
  }
  if (!tied_with_next) {
    // Exactly the candidates at or above the last admitted value: count them per request (the sure
    // ones lie above it). Survivals are positive, so the float just below is bits - 1.
    const float below = std::bit_cast<float>(std::bit_cast<std::uint32_t>(last) - 1);
    for (std::size_t r = 0; r < requests; ++r) {
      lengths[r] = count_above(rows_[r], view.gamma, below);
    }
    return;
  }
  // The last admitted value ties with the next: the order's tie-breaks pick which of the tied
  // candidates are in (the sure ones lie above the tie).
  merge_.admit_first(rows, view.gamma, ids, sure_count + static_cast<std::int64_t>(admitted), last,
                     lengths);
}

}  // namespace sparksim
