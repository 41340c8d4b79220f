// `threshold:t=X[,mode=raw|survival]`: cut each request's block at the first position whose raw
// confidence c_k (mode=raw, the published offline diagnostic) or cumulative survival
// a_k = Π_{i≤k} c_i (mode=survival, the calibrated variant) is below X. Load-blind. Whether
// position k is verified depends only on c_1..c_k, which depend on drafts before k: lossless. Reads
// the current step's confidences on the host, so synchronous by default.
#pragma once

#include "policies/verification_policy.hpp"

namespace sparksim {

class ThresholdPolicy final : public VerificationPolicy {
 public:
  enum class Mode { kRaw, kSurvival };
  ThresholdPolicy(double threshold, Mode mode, bool synchronous)
      : threshold_(threshold), mode_(mode), synchronous_(synchronous) {}
  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override;
  bool synchronous() const override { return synchronous_; }

 private:
  double threshold_;
  Mode mode_;
  bool synchronous_;
};

}  // namespace sparksim
