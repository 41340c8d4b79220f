// CPU reference of the MTP-1 drafter: DeepSeek-V3's multi-token-prediction module on a Qwen3
// target. Pass k of a round sits at position p = context_len + k and turns a hidden state h and
// the next token t into x = eh_proj [enorm(Emb t) ; hnorm(h)] (2h -> h, the order of vLLM's
// deepseek_mtp), one decoder layer (causal over the module's own KV cache), then the shared
// head: the target's LM head after the module's own norm. Pass 0 takes the target's last hidden
// state at position context_len and the anchor (the token after it); pass k > 0 takes pass k-1's
// output hidden state (before the head norm) and its drafted token, so γ passes draft γ tokens
// autoregressively (γ = 1 is the classic MTP-1). The module's KV cache holds positions
// 0..context_len-1, each made from the target's state there and the token that followed it.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/reference/ar_drafter_ref.hpp"

namespace sparksim::kernels {

// The module's own weights; its embedding and LM head are the target's (shared, frozen).
struct Mtp1Weights {
  std::vector<float> enorm;      // [hidden] RMSNorm gain of the token embedding
  std::vector<float> hnorm;      // [hidden] RMSNorm gain of the incoming hidden state
  std::vector<float> eh_proj;    // [hidden, 2 hidden]: columns [embedding | hidden state]
  LayerWeights layer;            // one decoder layer of the target's shape
  std::vector<float> head_norm;  // [hidden] shared_head.norm before the target's LM head
};

// Tensor ids from 600000 (never the target's or the DSpark drafter's), in the order above (the
// layer's tensors in LayerWeights order); kernels/cuda/ar_drafter_model.cu draws the same.
Mtp1Weights make_random_mtp1_weights(const TransformerShape& target, std::uint64_t seed,
                                     double matrix_std = 0.02);
constexpr std::uint64_t kMtp1FirstTensorId = 600000;

// Appends n positions start..start+n-1 of `slot` to the module's cache (1 layer): position
// start + i from target_states row i [hidden] and next_tokens[i], the token that followed it.
// Throws std::invalid_argument on a cache of the wrong shape, a slot overflow or a bad token.
void mtp1_context_update_ref(const Mtp1Weights& w, const TargetWeights& target,
                             const double* target_states, const int* next_tokens, int n, int start,
                             int slot, HostKvCache& cache);

// γ passes at positions context_len..context_len+γ-1 over the cache's positions
// 0..context_len-1 of `slot` (not modified: the passes' own K/V are kept only for the round).
// last_state [hidden] is the target's last hidden state at position context_len; anchor the
// token after it.
ArDraftResult mtp1_draft_ref(const Mtp1Weights& w, const TargetWeights& target,
                             const HostKvCache& cache, int slot, int context_len,
                             const double* last_state, int anchor, int gamma,
                             const ArDraftOptions& options = {});

}  // namespace sparksim::kernels
