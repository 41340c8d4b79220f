// CPU references of the per-token operations of a Qwen3 decoder layer, accumulating in double.
// They are the ground truth the CUDA kernels are compared against (kernels/checks/) and the
// building blocks of the whole-model references (verify_forward_ref, dspark_ref).
#pragma once

namespace sparksim::kernels {

// out = x / sqrt(mean(x^2) + eps) * gain, over n values. out may alias x.
void rms_norm_ref(const double* x, const float* gain, int n, double eps, double* out);

// y = W x for a row-major W [rows x cols] (nn.Linear layout: y_i = sum_j W_ij x_j).
void matvec_ref(const float* w, const double* x, int rows, int cols, double* y);

// Rotary embedding of one head in place, Qwen3/NeoX convention: dims (i, i + head_dim/2) rotate
// by position * theta^(-2i/head_dim).
void rope_ref(double* head, int head_dim, int position, double theta);

// Qwen3's per-head q/k norm then RoPE of one token's fused projection, in place: qkv is
// [q_heads | kv_heads | kv_heads] heads of head_dim (queries, keys, values); each query head is
// RMSNorm'd with q_norm and each key head with k_norm (head_dim gains), then rotated at
// `position`; the values are left as they are. The composition of rms_norm_ref and rope_ref that
// the fused kernel (cuda/fused_qk_norm_rope_kv.cu) replaces.
void qk_norm_rope_ref(double* qkv, const float* q_norm, const float* k_norm, int q_heads,
                      int kv_heads, int head_dim, int position, double eps, double theta);

// out_i = silu(gate_i) * up_i, silu(g) = g / (1 + e^-g). out may alias either input.
void swiglu_ref(const double* gate, const double* up, int n, double* out);

// Softmax of logits / temperature over n values (max-subtracted).
void softmax_ref(const double* logits, int n, double temperature, double* out);

// One query head attending to `count` cached positions: keys and values of position j start at
// k + j * stride and v + j * stride (head_dim values each); scale 1/sqrt(head_dim).
void attention_ref(const double* q, const float* k, const float* v, int count, long long stride,
                   int head_dim, double* out);

}  // namespace sparksim::kernels
