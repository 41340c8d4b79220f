// CPU reference of one greedy engine step with an autoregressive drafter (MTP-1 or EAGLE-3) for
// R requests: γ drafter passes from the target's captured states, one ragged verify forward over
// [anchor, x_1..x_l] per request, greedy acceptance, commit, and the drafter's context update
// from the target's states at the newly committed positions. The sibling of step_ref's DSpark
// step, and the reference a device step runner for these drafters is to match.
//
// Positions: the target has cached 0..C-1 and the anchor sits at C (SpecRequest). The drafter's
// position p is made from the target's state at p and the token at p + 1, so its cache holds
// 0..C-2 and the round's pass 0 sits at C-1, taking the target's state there (kept with the
// request) and the anchor; draft k then lands at position C + k, as the verify forward expects.
#pragma once

#include <vector>

#include "kernels/reference/eagle3_ref.hpp"
#include "kernels/reference/mtp1_ref.hpp"
#include "kernels/reference/step_ref.hpp"

namespace sparksim::kernels {

// Exactly one of the two is set (the weights must outlive the step).
struct ArDrafterRef {
  const Mtp1Weights* mtp1 = nullptr;
  const Eagle3Weights* eagle3 = nullptr;
  // Target layers whose states the drafter consumes: the last layer's output (MTP-1), EAGLE-3's
  // low, mid and high layers. Throws std::invalid_argument unless exactly one drafter is set.
  std::vector<int> capture_layers(const TransformerShape& target) const;
};

// A running request: `spec` as in step_ref.hpp (context_len >= 1) and the target's captured
// states at position spec.context_len - 1 [capture_layers x hidden], pass 0's input.
struct ArSpecRequest {
  SpecRequest spec;
  std::vector<double> last_states;
};

// Prefills prompt[0..n-2] (n >= 2) into `slot` of the target cache, fills the drafter's cache
// with positions 0..n-3, and returns the request with prompt.back() as its anchor.
ArSpecRequest ar_prefill_ref(const TargetWeights& target, const ArDrafterRef& drafter,
                             HostKvCache& target_cache, HostKvCache& draft_cache,
                             const std::vector<int>& prompt, int slot);

// Every request drafts gamma tokens greedily, verifies the first verify_lengths[r] of them
// (clamped to [0, gamma]), commits, and the drafter's cache takes positions C-1..C+a-1 (a
// accepted) from [last_states, the verified states] and [anchor, accepted drafts]; last_states
// becomes the target's state at the new C-1. StepOutcome as in step_ref.hpp.
std::vector<StepOutcome> ar_greedy_step_ref(const TargetWeights& target,
                                            const ArDrafterRef& drafter, HostKvCache& target_cache,
                                            HostKvCache& draft_cache,
                                            std::vector<ArSpecRequest>& requests,
                                            const std::vector<int>& verify_lengths, int gamma);

}  // namespace sparksim::kernels
