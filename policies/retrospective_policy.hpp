// `retrospective`: the global search of async-topk (whole admission path, no early stop) run on
// the current step's realised confidences. UNSAFE on purpose: the decision to verify draft j can
// depend on c_{j+1}, which depends on draft j itself, so admission peeks at the token it admits
// (the paper's Appendix A; the losslessness validator must catch it). Synchronous by default.
#pragma once

#include <cstdint>
#include <vector>

#include "policies/merged_candidates_policy.hpp"

namespace sparksim {

class RetrospectivePolicy final : public MergedCandidatesPolicy {
 public:
  using MergedCandidatesPolicy::MergedCandidatesPolicy;
  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override;

 private:
  std::vector<float> order_;    // this step's positive survivals, descending
  std::vector<float> scratch_;  // sort_survivals_descending's
};

}  // namespace sparksim
