// Algorithm 1: greedy admission by survival with the early-stopping break.
//
// Ordering every candidate (a k-way merge) dominated this policy's cost, so schedule() first
// finds, without ordering anything, the candidates Algorithm 1 must admit wherever they fall in
// the order: admitting survival a at B verify tokens raises Θ = τ·SPS(B) iff
// a > τ·(SPS(B)/SPS(B+1) − 1), and along the whole path τ <= R + Σ survivals and B stays in
// [R, R + N − 1], so every candidate above T = (R + Σ)·(max ratio − 1) passes its test. Those
// form a prefix of each request (survival never grows along a request) and come first in the
// order, so the early stop cannot happen before them. Only the rest are ordered, lazily (over the
// request heads: the walk usually stops a few candidates in), and walked with the early stop
// from the state after the sure admissions. The answer is the
// reference's exactly: the bound carries a relative margin far above rounding, and a walked
// comparison within kTieMargin of a tie (where summing τ in row order instead of the reference's
// sorted order could flip it) reruns the reference search instead.
#include "policies/greedy_policy.hpp"

#include <cmath>
#include <limits>

#include "common/count_above.hpp"
#include "policies/admission_search.hpp"

namespace sparksim {

namespace {
constexpr double kBoundMargin = 1e-9;  // relative slack on the sure-admission bound
constexpr double kTieMargin = 1e-12;   // relative gap below which a walked decision is redone
}  // namespace

void GreedyPolicy::schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) {
  const auto requests = static_cast<std::size_t>(view.requests);
  const auto gamma = static_cast<std::size_t>(view.gamma);
  survivals_.resize(requests * gamma + 4);  // + 4: count_above reads up to 3 past a row
  prefix_.resize(requests * (gamma + 1));
  rows_.resize(requests);
  positive_.resize(requests);
  sure_.resize(requests);
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
  sure_admissions_ += sure_count;
  if (rest == 0) return;

  // Lazily: the walk usually stops a few candidates in, long before the tail is exhausted.
  merge_.reset(rows_, sure_, positive_, ids, /*lazy=*/true);
  std::int64_t batch = view.requests + sure_count;
  double tau = static_cast<double>(view.requests) + sure_sum;
  double best = tau * sps.steps_per_s(batch);
  while (!merge_.empty()) {
    const Candidate c = merge_.top();
    const double theta = (tau + c.survival) * sps.steps_per_s(batch + 1);
    if (!(std::abs(theta - best) > kTieMargin * std::abs(best))) {
      // Too close to call with τ summed in another order (or not finite): the reference search.
      merge_.reset(rows_, positive_, ids);
      early_stop_search(merge_, view.requests, sps, lengths);
      ++reference_searches_;
      return;
    }
    if (!(theta > best)) break;
    best = theta;
    tau += c.survival;
    ++batch;
    lengths[c.request] = static_cast<int>(c.position);
    merge_.advance();
  }
}

}  // namespace sparksim
