// The autoregressive-drafter engine step reference (ar_step_ref.hpp).
#include "kernels/reference/ar_step_ref.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/reference/verify_forward_ref.hpp"

namespace sparksim::kernels {

namespace {

void context_update(const ArDrafterRef& d, const TargetWeights& target, const double* states,
                    const int* next_tokens, int n, int start, int slot, HostKvCache& cache) {
  if (d.mtp1 != nullptr) {
    mtp1_context_update_ref(*d.mtp1, target, states, next_tokens, n, start, slot, cache);
  } else {
    eagle3_context_update_ref(*d.eagle3, target, states, next_tokens, n, start, slot, cache);
  }
}

ArDraftResult draft(const ArDrafterRef& d, const TargetWeights& target, const HostKvCache& cache,
                    const ArSpecRequest& r, int gamma) {
  const int ctx = r.spec.context_len - 1;
  if (d.mtp1 != nullptr) {
    return mtp1_draft_ref(*d.mtp1, target, cache, r.spec.slot, ctx, r.last_states.data(),
                          r.spec.anchor, gamma);
  }
  return eagle3_draft_ref(*d.eagle3, target, cache, r.spec.slot, ctx, r.last_states.data(),
                          r.spec.anchor, gamma);
}

}  // namespace

std::vector<int> ArDrafterRef::capture_layers(const TransformerShape& target) const {
  if ((mtp1 == nullptr) == (eagle3 == nullptr)) {
    throw std::invalid_argument("ar step: set exactly one of the MTP-1 and EAGLE-3 drafters");
  }
  if (mtp1 != nullptr) return {target.layers - 1};
  return eagle3->shape.target_layer_ids;
}

ArSpecRequest ar_prefill_ref(const TargetWeights& target, const ArDrafterRef& drafter,
                             HostKvCache& target_cache, HostKvCache& draft_cache,
                             const std::vector<int>& prompt, int slot) {
  const int n = static_cast<int>(prompt.size());
  if (n < 2) throw std::invalid_argument("ar prefill: the prompt needs at least 2 tokens");
  const std::vector<int> head(prompt.begin(), prompt.end() - 1);
  ForwardCapture capture{drafter.capture_layers(target.shape), {}};
  const RaggedBatch batch{head, {0, n - 1}, {0}, {slot}};
  verify_forward_ref(target, batch, target_cache, &capture);
  const std::size_t row = capture.layer_ids.size() * target.shape.hidden;
  // Position i (< n - 2) from its state and prompt[i + 1]; position n - 2 is the next pass 0.
  context_update(drafter, target, capture.states.data(), prompt.data() + 1, n - 2, 0, slot,
                 draft_cache);
  ArSpecRequest out;
  out.spec = {slot, n - 1, prompt.back()};
  out.last_states.assign(capture.states.begin() + (n - 2) * row, capture.states.end());
  return out;
}

std::vector<StepOutcome> ar_greedy_step_ref(const TargetWeights& target,
                                            const ArDrafterRef& drafter, HostKvCache& target_cache,
                                            HostKvCache& draft_cache,
                                            std::vector<ArSpecRequest>& requests,
                                            const std::vector<int>& verify_lengths, int gamma) {
  VerifyStepOptions o;
  o.capture_layers = drafter.capture_layers(target.shape);
  const std::size_t row = o.capture_layers.size() * target.shape.hidden;
  if (verify_lengths.size() != requests.size()) {
    throw std::invalid_argument("ar step: one verify length per request");
  }
  std::vector<std::vector<int>> drafts;
  std::vector<SpecRequest> specs;
  for (std::size_t r = 0; r < requests.size(); ++r) {
    const ArSpecRequest& req = requests[r];
    if (req.spec.context_len < 1 || req.last_states.size() != row) {
      throw std::invalid_argument("ar step: a request needs context_len >= 1 and its last states");
    }
    const ArDraftResult d = draft(drafter, target, draft_cache, req, gamma);
    const int l = std::clamp(verify_lengths[r], 0, gamma);
    drafts.emplace_back(d.tokens.begin(), d.tokens.begin() + l);
    specs.push_back(req.spec);
  }
  std::vector<StepOutcome> out = verify_step_ref(target, target_cache, specs, drafts,
                                                 std::vector<std::vector<double>>(specs.size()), o);
  for (std::size_t r = 0; r < requests.size(); ++r) {
    ArSpecRequest& req = requests[r];
    const int a = out[r].accepted;
    // Rows: the state at C-1 then the verified states at C..C+a-1; tokens: the anchor at C and
    // the accepted drafts at C+1..C+a, each the token after its row's position.
    std::vector<double> states = req.last_states;
    states.insert(states.end(), out[r].states.begin(), out[r].states.begin() + a * row);
    std::vector<int> next = {req.spec.anchor};
    next.insert(next.end(), out[r].committed.begin(), out[r].committed.begin() + a);
    context_update(drafter, target, states.data(), next.data(), 1 + a, req.spec.context_len - 1,
                   req.spec.slot, draft_cache);
    req.last_states.assign(out[r].states.begin() + a * row, out[r].states.end());
    req.spec = specs[r];
  }
  return out;
}

}  // namespace sparksim::kernels
