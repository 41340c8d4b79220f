// `goodput:prior=P,ema=W`: a SmartSpec-style baseline. One proposal length k ∈ [0, γ] for the whole
// batch, chosen each step to maximise the estimated goodput R·E_k·SPS(R·(1+k)), where
// E_k = Σ_{i=0..k} α^i is the expected tokens per request under a per-draft acceptance rate α, and
// SPS is the profile's cost table. Confidences are ignored. α is a moving average of observed
// acceptance, derived from what a policy legitimately sees: a request that stays in the batch
// grows its context by exactly the tokens its last step committed, min(ℓ, accepted) + 1, so
// accepted = Δcontext - 1, and a rejection happened iff accepted < ℓ. Over those censored
// observations the maximum-likelihood per-draft acceptance is accepted / (accepted + rejections);
// the policy keeps exponential moving averages (weight W per observed step) of both counts,
// starting from one pseudo-observation at α = P. Steps with ℓ = 0 teach nothing and leave α as is.
// Decisions depend only on past outcomes: lossless. It needs the previous step's outcome on the
// host before deciding (vLLM-style loop): synchronous by default.
#pragma once

#include <cstdint>
#include <vector>

#include "policies/request_slots.hpp"
#include "policies/verification_policy.hpp"

namespace sparksim {

class GoodputPolicy final : public VerificationPolicy {
 public:
  GoodputPolicy(double prior_acceptance, double ema_weight, bool synchronous);
  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override;
  bool synchronous() const override { return synchronous_; }
  bool reads_confidences() const override { return false; }
  void on_request_left(std::uint64_t request_id) override { slots_.release(request_id); }

  // The current estimate of the per-draft acceptance rate α.
  double acceptance_estimate() const;

 private:
  double ema_weight_;
  bool synchronous_;
  double accepted_avg_;  // moving average of accepted drafts per observed step
  double rejected_avg_;  // moving average of rejections per observed step
  std::int64_t step_ = 0;
  RequestSlots slots_;
  // Per slot: the last step it was scheduled in, its context then, and the length it got.
  std::vector<std::int64_t> last_step_;
  std::vector<std::int64_t> last_context_;
  std::vector<int> last_length_;
};

}  // namespace sparksim
