// CPU reference of one Qwen3 decoder layer, split at the attention so that callers choose what a
// token attends to: the verify target (causal over its own KV cache) and the DSpark block
// (non-causal over [draft context | block]) share everything else.
#pragma once

#include <vector>

#include "kernels/model_shape.hpp"
#include "kernels/random_weights.hpp"

namespace sparksim::kernels {

// Projections of T tokens: q [T x q_width] and k [T x kv_width] after their per-head RMSNorm and
// RoPE at `positions`, v [T x kv_width].
struct LayerQkv {
  std::vector<double> q;
  std::vector<double> k;
  std::vector<double> v;
};

// Attention input of T residual-stream rows x [T x hidden]: RMSNorm(attn_norm), fused QKV,
// q/k norm, RoPE. With `pre_normed`, x is used as is (the DSpark context features, already
// normalised by ctx_norm, skip attn_norm).
LayerQkv layer_qkv_ref(const LayerWeights& w, const TransformerShape& s, const double* x,
                       int tokens, const int* positions, bool pre_normed = false);

// The rest of the layer, in place on x [T x hidden]: x += W_o attn; x += W_down swiglu(W_gate_up
// RMSNorm(x)). attn is [T x q_width], the attention output of every query head.
void layer_output_ref(const LayerWeights& w, const TransformerShape& s, const double* attn,
                      int tokens, double* x);

}  // namespace sparksim::kernels
