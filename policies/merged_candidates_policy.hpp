// MergedCandidatesPolicy: what `greedy` and `retrospective` share. Both compute the current
// step's survivals per request and walk them in admission order through a CandidateMerge, and
// both decide on the current step's confidences, so synchronous by default with `sync=off` to
// idealise. The scratch lives here so that each policy keeps only its own.
#pragma once

#include <vector>

#include "policies/candidate_merge.hpp"
#include "policies/verification_policy.hpp"

namespace sparksim {

class MergedCandidatesPolicy : public VerificationPolicy {
 public:
  explicit MergedCandidatesPolicy(bool synchronous) : synchronous_(synchronous) {}
  bool synchronous() const final { return synchronous_; }

 protected:
  std::vector<float> survivals_;    // scratch, R×γ
  std::vector<const float*> rows_;  // scratch, R
  std::vector<int> positive_;       // scratch, R
  CandidateMerge merge_;

 private:
  bool synchronous_;
};

}  // namespace sparksim
