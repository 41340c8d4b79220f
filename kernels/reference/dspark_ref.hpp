// CPU reference of the DSpark drafter (and of dflash, the same backbone without its two heads).
// A request's draft context holds positions 0..L-1: the target's hidden states at its chosen
// layers for every committed token whose target forward has run, projected by fc, RMSNorm'd and
// turned into per-layer K/V. The anchor (the token just committed, whose target states do not
// exist yet) sits at position L; the block is [anchor | gamma-1 mask embeddings] at positions
// L..L+gamma-1, each attending non-causally to [draft context | whole block]. Block position k-1
// yields the base logits U_k of draft k (k = 1..gamma).
#pragma once

#include <vector>

#include "kernels/ragged_batch.hpp"
#include "kernels/random_weights.hpp"

namespace sparksim::kernels {

// Appends n newly committed positions start..start+n-1 of `slot` to the draft cache (one layer
// per draft layer): h = RMSNorm(fc states), then each layer's K = RoPE(k_norm(W_k h)) and
// V = W_v h (h is already normalised: no attn_norm). states is [n x ids * hidden], concatenated in
// target_layer_ids order. Throws std::invalid_argument if the slot would overflow.
void dspark_context_update_ref(const DraftWeights& w, const TransformerShape& target,
                               const double* states, int n, int start, int slot,
                               HostKvCache& draft_cache);

struct DraftResult {
  std::vector<int> tokens;          // [gamma] x_1..x_gamma
  std::vector<double> p_draft;      // [gamma x vocab] the distribution each x_k was drawn from
  std::vector<double> confidence;   // [gamma] (dspark); empty for dflash
  std::vector<double> base_logits;  // [gamma x vocab] U_k, before the Markov bias
};

struct DraftOptions {
  // 0: greedy (x_k = argmax; p_draft at temperature 1). Otherwise x_k is the inverse-CDF draw of
  // softmax(logits / temperature) at uniforms[k-1].
  double temperature = 0.0;
  std::vector<double> uniforms;       // [gamma] when temperature > 0
  bool markov_and_confidence = true;  // false: the dflash drafter (x_k from U_k alone)
};

// One block forward for one request: context positions 0..context_len-1 of `slot`, the anchor
// token at position context_len. DSpark's Markov head, left to right: logits_k = U_k +
// W2 W1[x_{k-1}] with x_0 = anchor; confidence c_k = sigmoid((w . [h_k ; W1[x_{k-1}]] + b) / T_k)
// with the per-position STS temperature T_k.
DraftResult dspark_draft_ref(const DraftWeights& w, const TargetWeights& target,
                             const HostKvCache& draft_cache, int slot, int context_len, int anchor,
                             const DraftOptions& options);

}  // namespace sparksim::kernels
