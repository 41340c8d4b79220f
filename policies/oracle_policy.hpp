// `oracle`: verifies exactly the drafts the target will accept (ℓ_r = hidden accepted count), so
// no verified draft is ever rejected and nothing acceptable is left out. An unrealisable upper
// bound on τ per verified token; it reads BatchView::hidden_accepted (registry row flagged
// sees_hidden_outcome) and is UNSAFE: admission depends on the outcome it is supposed to test.
// Synchronous by default (it decides on the current step's drafts); `sync=off` idealises further.
#pragma once

#include "policies/verification_policy.hpp"

namespace sparksim {

class OraclePolicy final : public VerificationPolicy {
 public:
  explicit OraclePolicy(bool synchronous) : synchronous_(synchronous) {}
  // Throws std::logic_error if the view carries no hidden outcome (a wiring bug, not bad input).
  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override;
  bool synchronous() const override { return synchronous_; }
  bool reads_confidences() const override { return false; }

 private:
  bool synchronous_;
};

}  // namespace sparksim
