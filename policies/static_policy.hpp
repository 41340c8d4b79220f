// `static:k=N`: every request verifies exactly N draft tokens (N+1 target tokens), N <= γ.
// With the mtp1 drafter, static:k=1 is the MTP-1 production baseline; static:k=γ verifies the
// full block. Needs nothing from the current step, so by default it is asynchronous and never pays
// the host scheduling overhead (`sync=on` charges it anyway).
#pragma once

#include "policies/verification_policy.hpp"

namespace sparksim {

class StaticPolicy final : public VerificationPolicy {
 public:
  StaticPolicy(int k, bool synchronous) : k_(k), synchronous_(synchronous) {}
  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override;
  bool synchronous() const override { return synchronous_; }
  bool reads_confidences() const override { return false; }

 private:
  int k_;
  bool synchronous_;
};

}  // namespace sparksim
