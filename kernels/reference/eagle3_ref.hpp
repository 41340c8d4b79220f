// CPU reference of the EAGLE-3 drafter on a Qwen3 target (Li et al. 2025, "EAGLE-3: Scaling up
// Inference Acceleration of Large Language Models via Training-Time Test"; the layout of vLLM's
// llama_eagle3 and SpecForge). Pass k of a round sits at position p = context_len + k with a
// residual hidden state g and a token t: the layer's attention input is
// [attn_norm(Emb t) ; hidden_norm(g)] (2h wide, so W_qkv is [qkv x 2h]), its residual stream
// starts at g, attention is causal over the drafter's own KV cache, and the MLP is the target's
// shape. The head is the drafter's own: final norm, an LM head over a reduced draft vocabulary,
// and a draft-to-target token map d2t. Pass 0's g is fc [low ; mid ; high] (3h -> h), the
// target's hidden states at three layers at position context_len, with the anchor as t; pass k>0
// takes pass k-1's output hidden state (before the final norm) and its drafted token. The
// drafter's KV cache holds positions 0..context_len-1, each made from the target's states there
// and the token that followed it.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/reference/ar_drafter_ref.hpp"

namespace sparksim::kernels {

struct Eagle3Shape {
  int draft_vocab = 0;
  std::vector<int> target_layer_ids;  // low, mid, high (3 ids; may repeat on tiny targets)
  void validate(const TransformerShape& target) const;
};

// vLLM's default auxiliary layers (2, L/2, L-3), on targets of fewer than 6 layers
// (0, L/2, L-1); the released configs' draft vocabulary of 32000, or a quarter of a smaller
// target vocabulary (the tiny test and CPU-calibration shapes).
Eagle3Shape eagle3_shape(const TransformerShape& target);

struct Eagle3Weights {
  Eagle3Shape shape;
  std::vector<float> fc;           // [hidden, 3 hidden]: columns [low | mid | high]
  std::vector<float> hidden_norm;  // [hidden] RMSNorm gain of the incoming hidden state
  LayerWeights layer;              // attn_norm normalises the embedding; wqkv is [qkv x 2 hidden]
  std::vector<float> final_norm;   // [hidden]
  std::vector<float> lm_head;      // [draft_vocab, hidden]
  std::vector<int> d2t;            // [draft_vocab] target id of each draft id, strictly increasing
};

// Tensor ids from 700000, in the order above; d2t is a strictly increasing pick of one target id
// per stride of vocab / draft_vocab (a frequency-ranked subset sorted, as released d2t tables
// are; they store d2t[i] - i, this is the absolute id).
Eagle3Weights make_random_eagle3_weights(const TransformerShape& target, const Eagle3Shape& shape,
                                         std::uint64_t seed, double matrix_std = 0.02);
constexpr std::uint64_t kEagle3FirstTensorId = 700000;
// The d2t table alone (the device model builds it on the host: it is small).
std::vector<int> eagle3_d2t(const TransformerShape& target, const Eagle3Shape& shape,
                            std::uint64_t seed);

// Appends n positions start..start+n-1 of `slot`: position start + i from target_states row i
// [3 hidden] (low, mid, high) and next_tokens[i], the token that followed it.
void eagle3_context_update_ref(const Eagle3Weights& w, const TargetWeights& target,
                               const double* target_states, const int* next_tokens, int n,
                               int start, int slot, HostKvCache& cache);

// γ passes at positions context_len..context_len+γ-1 over the cache's positions
// 0..context_len-1 of `slot` (not modified). last_states [3 hidden] are the target's low, mid and
// high states at position context_len, anchor the token after it. logits are over the draft
// vocabulary; tokens and p_draft over the target's (p_draft zero outside d2t's image).
ArDraftResult eagle3_draft_ref(const Eagle3Weights& w, const TargetWeights& target,
                               const HostKvCache& cache, int slot, int context_len,
                               const double* last_states, int anchor, int gamma,
                               const ArDraftOptions& options = {});

}  // namespace sparksim::kernels
