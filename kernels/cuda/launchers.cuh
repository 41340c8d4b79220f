// Device-pointer launchers of the kernels in layer_kernels.cu, attention.cu and rejection.cu,
// used by the host wrappers and VerifyModel (gpu_api.cu). Shapes are validated by the callers,
// before launch; every launcher checks the launch.
#pragma once

#include "kernels/cuda/cuda_check.cuh"

namespace sparksim::kernels::gpu::detail {

// Where row r of a per-head or per-token tensor starts: token r / per_token, head r % per_token,
// at base + token * token_stride + head * row_len.
struct RowLayout {
  int per_token = 1;
  long long token_stride = 0;
  long long base = 0;
};

// Each launcher's tolerance against its CPU reference, with the metric and the reason, is declared
// in kernels/kernel_tolerances.hpp (named after the kernel) and checked in kernels/checks/.

// Tolerance kRmsNormMaxRel.
template <class In>
void launch_rms_norm(const In* x, RowLayout in, const bf16* gain, int rows, int n, float eps,
                     bf16* out, RowLayout out_layout, cudaStream_t stream);

// Tolerance kRopeMaxRel.
void launch_rope(bf16* x, RowLayout layout, const int* token_pos, int rows, int head_dim,
                 double theta, cudaStream_t stream);

// Tolerance kKvAppendMaxRel (exact).
void launch_kv_append(const bf16* k_src, const bf16* v_src, long long src_stride, int tokens,
                      const int* token_slot, const int* token_pos, bf16* k_cache, bf16* v_cache,
                      long long layer_offset, long long slot_stride, int kv_width,
                      cudaStream_t stream);

// The five launches above fused (fused_qk_norm_rope_kv.cu): qkv [T x (q_heads + 2 kv_heads) x
// head_dim], query heads normalised and rotated in place, key heads normalised and rotated into
// the cache at (token_slot, token_pos), value heads copied beside them. Tolerance
// kFusedQkNormRopeMaxRel (queries, keys), exact for the values.
void launch_qk_norm_rope_kv_append(bf16* qkv, int tokens, int q_heads, int kv_heads, int head_dim,
                                   const bf16* q_norm, const bf16* k_norm, float eps, double theta,
                                   const int* token_slot, const int* token_pos, bf16* k_cache,
                                   bf16* v_cache, long long layer_offset, long long slot_stride,
                                   cudaStream_t stream);

// Tolerance kAttentionMaxRel.
void launch_ragged_attention(const bf16* q, long long q_stride, const bf16* k_cache,
                             const bf16* v_cache, long long layer_offset, long long slot_stride,
                             int kv_width, const int* token_slot, const int* token_kv_len,
                             int tokens, int q_heads, int group, int head_dim, bf16* out,
                             long long out_stride, cudaStream_t stream);

// Tolerance kSwigluMaxRel.
void launch_swiglu(const bf16* gate_up, int tokens, int ffn, bf16* out, cudaStream_t stream);

void launch_embed(const int* tokens, int count, const bf16* embed, int hidden, float* x,
                  cudaStream_t stream);

// dst row i = src row rows[i] (fp32, width values): the rows the LM head needs. Exact (a copy).
void launch_gather_rows(const float* src, const int* rows, int count, int width, float* dst,
                        cudaStream_t stream);

// states[t * stride + offset + i] = bf16(x[t * hidden + i]) for T rows: one captured layer's
// hidden states into the drafter's context input [T x ids * hidden]. Exact up to the bf16
// rounding the CPU reference's context input also takes.
void launch_store_states(const float* x, int tokens, int hidden, bf16* states, long long stride,
                         long long offset, cudaStream_t stream);

// Greedy verification of a step (greedy_step.cu). Request r owns verify rows [cu[r], cu[r+1]):
// the anchor, then its drafts. place_drafts writes drafts[r * gamma + i] at token cu[r] + 1 + i;
// row_argmax writes the first maximum of each logits row; greedy_accept counts the leading
// drafts equal to the target's argmax of the row before them and commits the argmax after them.
// All exact (integer work on the argmax, whose ties follow std::max_element).
void launch_place_drafts(const int* drafts, int gamma, const int* cu, int requests, int* tokens,
                         cudaStream_t stream);
void launch_row_argmax(const float* logits, int rows, int vocab, int* argmax, cudaStream_t stream);
void launch_greedy_accept(const int* cu, const int* tokens, const int* argmax, int requests,
                          int* accepted, int* committed, cudaStream_t stream);

// Tolerance kSoftmaxNmse.
void launch_softmax(const float* logits, int rows, int n, float inv_temperature, float* out,
                    cudaStream_t stream);

// Tolerance: accepted counts exact, committed tokens kRejectionBoundaryMargin. Draft rows (of
// p_draft, draft_tokens, accept_u) packed as RejectionBatch's when draft_row_stride is 0, else
// request r's from row r * draft_row_stride (the drafter's [R x gamma] layout).
void launch_rejection(const int* cu_seqlens, int requests, int vocab, const float* p_target,
                      const float* p_draft, const int* draft_tokens, const double* accept_u,
                      const double* sample_u, int draft_row_stride, int* accepted, int* committed,
                      cudaStream_t stream);

// C [m x n] (row-major, fp32 or bf16, row stride ldc, n when 0) = A [m x k] W [n x k]^T + beta C:
// bf16 inputs, fp32 accumulation (CUBLAS_COMPUTE_32F). Tolerance kGemmMaxRel.
void gemm_bf16(cublasHandle_t handle, const bf16* a, const bf16* w, void* c, bool c_is_fp32, int m,
               int n, int k, float beta, int ldc = 0);

// n bf16 values of tensor `tensor_id` under `seed`, exactly as random_weight() draws them.
void launch_fill_random(bf16* dst, std::size_t n, std::uint64_t seed, std::uint64_t tensor_id,
                        double center, double half_width, cudaStream_t stream);

// DSpark block input: row r * gamma + k of x [R * gamma x hidden] is the embedding of anchors[r]
// (k = 0) or the mask embedding (k > 0), widened to fp32.
void launch_block_input(const int* anchors, int requests, int gamma, const bf16* embed,
                        const bf16* mask, int hidden, float* x, cudaStream_t stream);

// DSpark's Markov head, step k of gamma for R requests (markov.cu). Gathers W1[prev] into
// w1_rows [R x rank] and, when conf != nullptr, writes conf[r * gamma + k] = sigmoid((w . [h_k ;
// W1[prev]] + b) / T_k) from the block's final hidden h [R * gamma x hidden].
void launch_markov_gather(const int* prev, int requests, const bf16* w1, int rank, const bf16* h,
                          int hidden, int gamma, int k, const bf16* conf_w, float conf_b,
                          const float* sts_temperature, bf16* w1_rows, float* conf,
                          cudaStream_t stream);
// Row (r, k) of logits [R * gamma x vocab]: p = softmax(logits / temperature) (temperature 1 when
// greedy), then the token: argmax (greedy: temperature <= 0; the first maximum) or the inverse-CDF
// draw at uniforms[r * gamma + k]. Writes p_draft at the same row, tokens[r * gamma + k] and
// prev[r]. Tolerance kDraftNmse on p_draft; tokens exact unless a near-tie (kDraftTieMargin).
void launch_markov_sample(const float* logits, int requests, int gamma, int k, int vocab,
                          float temperature, const double* uniforms, float* p_draft, int* tokens,
                          int* prev, cudaStream_t stream);

}  // namespace sparksim::kernels::gpu::detail
