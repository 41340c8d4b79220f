// `retrospective`: the global search of async-topk (whole admission path, no early stop) run on
// the current step's realised confidences. UNSAFE on purpose: the decision to verify draft j can
// depend on c_{j+1}, which depends on draft j itself, so admission peeks at the token it admits
// (the paper's Appendix A; the losslessness validator must catch it). Synchronous by default.
#pragma once

#include <vector>

#include "policies/candidate_merge.hpp"
#include "policies/verification_policy.hpp"

namespace sparksim {

class RetrospectivePolicy final : public VerificationPolicy {
 public:
  explicit RetrospectivePolicy(bool synchronous) : synchronous_(synchronous) {}
  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override;
  bool synchronous() const override { return synchronous_; }

 private:
  bool synchronous_;
  std::vector<float> survivals_;    // scratch, R×γ
  std::vector<const float*> rows_;  // scratch, R
  std::vector<int> positive_;       // scratch, R
  std::vector<std::uint32_t> path_;
  CandidateMerge merge_;
};

}  // namespace sparksim
