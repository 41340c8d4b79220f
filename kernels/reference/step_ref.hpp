// CPU reference of one engine step of speculative decoding for R requests: draft (DSpark, or
// drafts supplied by the caller), one ragged verify forward over [anchor, x_1..x_l] per request,
// rejection sampling, commit, and the drafter's context update with the target states of the
// newly committed positions. The reference the GPU step runner is to match, and the end-to-end
// test of the pieces: with greedy verification, speculative decoding must reproduce the target's
// own greedy decoding token for token, whatever the drafter proposes.
#pragma once

#include <vector>

#include "kernels/ragged_batch.hpp"
#include "kernels/random_weights.hpp"

namespace sparksim::kernels {

// A running request: target K/V for positions 0..context_len-1 are in `slot` of the target
// cache (and the drafter's context has the same positions); `anchor` is the last committed
// token, not yet through the target.
struct SpecRequest {
  int slot = 0;
  int context_len = 0;
  int anchor = 0;
};

struct StepOutcome {
  int accepted = 0;            // drafts accepted
  std::vector<int> committed;  // accepted drafts, then the residual or bonus token
  std::vector<double> states;  // target states of [anchor, accepted drafts] (capture)
};

struct VerifyStepOptions {
  // 0: greedy verification (p_t one-hot at the target's argmax; drafts judged against it, so a
  // draft is accepted iff it equals the argmax). Otherwise p_t = softmax(logits / temperature).
  double temperature = 0.0;
  std::vector<double> accept_uniforms;  // per draft, flattened over requests (sampling only)
  std::vector<double> sample_uniforms;  // per request (sampling only)
  std::vector<int> capture_layers;      // target layers whose states the drafter consumes
};

// Verifies drafts[r] (with their draft distributions p_draft[r], [drafts x vocab]; one-hot at
// the drafts when empty) for every request, commits, and advances each request (context_len +=
// 1 + accepted, anchor = the final committed token). K/V of rejected positions stay in the cache
// beyond context_len and are overwritten by later steps.
std::vector<StepOutcome> verify_step_ref(const TargetWeights& target, HostKvCache& cache,
                                         std::vector<SpecRequest>& requests,
                                         const std::vector<std::vector<int>>& drafts,
                                         const std::vector<std::vector<double>>& p_draft,
                                         const VerifyStepOptions& options);

// A full greedy DSpark step: every request drafts gamma tokens and verifies the first
// verify_lengths[r] of them, then the drafter's context takes the committed positions' states.
std::vector<StepOutcome> dspark_greedy_step_ref(const TargetWeights& target,
                                                const DraftWeights& drafter,
                                                HostKvCache& target_cache, HostKvCache& draft_cache,
                                                std::vector<SpecRequest>& requests,
                                                const std::vector<int>& verify_lengths);

// The randomness of a sampled (lossless) DSpark step, all at the same temperature: the drafter
// draws x_k from softmax(logits / temperature), the target verifies against softmax(logits /
// temperature) by rejection sampling. Uniforms in [0, 1), laid out per request and block
// position (the device step runner takes the same arrays).
struct StepSampling {
  double temperature = 1.0;             // > 0
  std::vector<double> draft_uniforms;   // [R x gamma]: x_k of request r at r * gamma + k - 1
  std::vector<double> accept_uniforms;  // [R x gamma]: the test of draft i of request r
  std::vector<double> sample_uniforms;  // [R]: the residual or bonus draw
  // std::invalid_argument unless temperature > 0 and the arrays are R x gamma, R, in [0, 1).
  void validate(int requests, int gamma) const;
};

// The sampled step: dspark_draft_ref at the temperature with the draft uniforms, verify_step_ref
// with the drafts' distributions and the accept / sample uniforms, the context update.
std::vector<StepOutcome> dspark_sampled_step_ref(
    const TargetWeights& target, const DraftWeights& drafter, HostKvCache& target_cache,
    HostKvCache& draft_cache, std::vector<SpecRequest>& requests,
    const std::vector<int>& verify_lengths, const StepSampling& sampling);

}  // namespace sparksim::kernels
