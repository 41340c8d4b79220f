// `greedy`: DSpark's hardware-aware prefix scheduler, Algorithm 1 exactly. From ℓ_r = 0, B = R,
// τ = R, it admits candidates (r, j) with a_{r,j} > 0 in CandidateMerge order (survival desc,
// earlier position, lower request id), keeps each admission that raises Θ = τ·SPS(B), and stops at
// the first that does not. The early stop keeps it non-anticipating (lossless). It needs the
// current step's confidences on the host before the verify launch: synchronous by default.
#pragma once

#include <cstdint>
#include <vector>

#include "policies/merged_candidates_policy.hpp"
#include "policies/run_tournament.hpp"

namespace sparksim {

class GreedyPolicy final : public MergedCandidatesPolicy {
 public:
  using MergedCandidatesPolicy::MergedCandidatesPolicy;
  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override;

 private:
  std::vector<int> sure_;       // scratch, R: leading candidates admitted without ordering
  std::vector<double> prefix_;  // scratch, R×(γ+1): partial sums of each row's survivals
  std::vector<float> rest_;     // scratch: the survivals left after the sure admissions
  std::vector<std::uint32_t> run_starts_;  // scratch, R: where each row's rest begins in rest_
  RunTournament tournament_;               // the many-left walk's order
};

}  // namespace sparksim
