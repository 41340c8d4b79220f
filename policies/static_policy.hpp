// `static:k=N`: every request verifies exactly N draft tokens (N+1 target tokens), N <= γ.
// With the mtp1 drafter, static:k=1 is the MTP-1 production baseline; static:k=γ verifies the
// full block. Needs nothing from the current step, so it never pays the synchronous overhead.
#pragma once

#include "policies/verification_policy.hpp"

namespace sparksim {

class StaticPolicy final : public VerificationPolicy {
 public:
  explicit StaticPolicy(int k) : k_(k) {}
  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override;
  bool synchronous() const override { return false; }

 private:
  int k_;
};

}  // namespace sparksim
