// The two searches over DSpark's admission path. Admitting candidates in CandidateMerge order, the
// m-th admission gives B = R + m verify tokens and expected tokens τ = R + Σ (first m survivals),
// and the scheduler wants the m maximising Θ = τ · SPS(B).
// - early_stop_search: Algorithm 1, stopping at the first admission that does not raise Θ. The
//   stop is what makes it non-anticipating (lossless) when run on the current step's confidences.
// - global_search: the whole path, no stop, so it can jump over a plateau or cliff of a staircase
//   SPS curve. Lossless only on data the current tokens cannot influence (async-topk's lagged
//   confidences); on current confidences it is the unsafe retrospective search of Appendix A.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "policies/candidate_merge.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {

// The global search's running state, fed one survival at a time in admission order. Every
// global search goes through it, so all of them sum τ and compare Θ in exactly the same way.
class GlobalSearchWalk {
 public:
  GlobalSearchWalk(std::int64_t requests, const SpsTable& sps)
      : sps_(sps),
        batch_(requests),
        tau_(static_cast<double>(requests)),
        best_(tau_ * sps.steps_per_s(requests)) {}
  void add(double survival) {
    tau_ += survival;
    ++batch_;
    ++walked_;
    const double theta = tau_ * sps_.steps_per_s(batch_);
    if (theta > best_) {
      best_ = theta;
      best_count_ = walked_;
    }
  }
  // add(), for `count` survivals of 1 and then every survival of `ordered`: the same sums and
  // comparisons, with the table range checked once and no branch on the comparison's outcome.
  void add_all(std::int64_t ones, std::span<const float> ordered) {
    const auto count = ones + static_cast<std::int64_t>(ordered.size());
    if (batch_ + count > sps_.max_tokens()) {
      for (std::int64_t i = 0; i < ones; ++i) add(1.0f);
      for (const float survival : ordered) add(survival);
      return;
    }
    const double* sps = sps_.table() + batch_;  // sps[i] = SPS(batch_ + 1 + i)
    double tau = tau_;
    double best = best_;
    std::int64_t best_count = best_count_;
    std::int64_t i = 0;
    const auto step = [&](double survival) {
      tau += survival;
      const double theta = tau * sps[i];
      ++i;
      const bool better = theta > best;
      best = better ? theta : best;
      best_count = better ? walked_ + i : best_count;
    };
    for (std::int64_t k = 0; k < ones; ++k) step(1.0);
    for (const float survival : ordered) step(survival);
    tau_ = tau;
    best_ = best;
    best_count_ = best_count;
    batch_ += count;
    walked_ += count;
  }
  // The admission count with the largest Θ so far (the smallest such count on ties).
  std::int64_t best_count() const { return best_count_; }

 private:
  const SpsTable& sps_;
  std::int64_t batch_;
  double tau_;
  double best_;
  std::int64_t best_count_ = 0;
  std::int64_t walked_ = 0;
};

// Writes lengths[r] (all R of them, zero for requests never admitted). `merge` is consumed.
// Returns the number of admitted drafts.
std::int64_t early_stop_search(CandidateMerge& merge, std::int64_t requests, const SpsTable& sps,
                               std::span<int> lengths);

// Returns the admission count m ∈ [0, number of candidates] maximising Θ (the smallest such m when
// several tie). If `path` is non-null it receives the request index of every candidate walked, in
// admission order, so the caller can apply the first m. `merge` is consumed.
std::int64_t global_search(CandidateMerge& merge, std::int64_t requests, const SpsTable& sps,
                           std::vector<std::uint32_t>* path);

// global_search over survivals already in admission order (non-increasing): the same answer as
// the merge-based overload on the same multiset of survivals, since only the values matter.
std::int64_t global_search(std::span<const float> ordered_survivals, std::int64_t requests,
                           const SpsTable& sps);

// What a cheap pass over the rows (no ordering) knows about an admission path.
struct PathSummary {
  std::int64_t candidates = 0;  // N: candidates with positive survival
  double survival_sum = 0;      // Σ of their survivals
  double max_survival = 0;      // the largest (any request's first position)
  double min_survival = 0;      // the smallest positive one
};

// An exact shortcut for global_search: true only if admitting all N candidates gives a Θ
// strictly above every shorter prefix, so global_search would return N. It bounds Θ(m) for m < N
// by (R + min(m·max, Σ - (N-m)·min))·SPS(R+m), which needs no ordering: N+1 table lookups and
// no merge. False means "unknown" (run the search), never a wrong answer. Typical when the engine
// has slack, where the whole path usually wins.
bool whole_path_wins(const PathSummary& path, std::int64_t requests, const SpsTable& sps);

}  // namespace sparksim
