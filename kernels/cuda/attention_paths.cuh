// Device-pointer launchers of the verify forward's planned attention (attention_plan.hpp): the
// split-K decode kernel and its log-sum-exp combine (attention_split_k.cu), the tensor-core
// prefill kernel (attention_prefill_tc.cu), and launch_planned_attention, which runs all three
// from a packed plan on the device. Grids are sized by the plan's layout (its capacities), not by
// the batch, so a captured CUDA graph replays any batch planned into the same layout; blocks past
// the packed item counts exit at once. Semantics: those of launch_ragged_attention (row j of a
// request sees its context + j + 1 keys). Tolerances: kAttentionSplitKMaxRel,
// kAttentionPrefillTcMaxRel (kernels/kernel_tolerances.hpp).
#pragma once

#include "kernels/attention_plan.hpp"
#include "kernels/cuda/cuda_check.cuh"

namespace sparksim::kernels::gpu::detail {

// One layer's K/V cache as the attention kernels read it: key j of slot s, KV head g at
// layer_offset + s * slot_stride + j * kv_width + g * head_dim (in k_cache and v_cache).
struct KvView {
  const bf16* k_cache = nullptr;
  const bf16* v_cache = nullptr;
  long long layer_offset = 0;
  long long slot_stride = 0;
  int kv_width = 0;
};

// The tile kernels' head dimensions (WMMA tiles of 16; the rows loaded as 16-byte vectors).
bool tile_attention_supports(int head_dim);

// SPARKSIM_ATTENTION=ragged in the environment (read once): models start on the ragged kernel,
// the way back should the planned kernels fail on a device (the kernel check still tests them).
bool ragged_attention_forced();

// The partial results of split-K: per token-split row, q head: o [head_dim] fp32 (normalised)
// and lse; sized for layout.token_splits rows.
struct SplitKWorkspace {
  float* o = nullptr;
  float* lse = nullptr;
};

// Split-K over the packed plan's split items: grid (layout.split_items, kv_heads).
void launch_split_k_attention(const bf16* q, long long q_stride, const KvView& kv, const int* plan,
                              const AttentionPlanLayout& layout, int q_heads, int kv_heads,
                              int head_dim, SplitKWorkspace ws, cudaStream_t stream);
// The combine: grid (tokens, q_heads); writes every split-K token's rows (and zeros on padding
// tokens), leaves tensor-core tokens alone.
void launch_split_k_combine(const int* plan, const AttentionPlanLayout& layout, int tokens,
                            int q_heads, int head_dim, SplitKWorkspace ws, bf16* out,
                            long long out_stride, cudaStream_t stream);
// Tensor-core tiles over the packed plan's tile items: grid (layout.tile_items, kv_heads).
void launch_prefill_tc_attention(const bf16* q, long long q_stride, const KvView& kv,
                                 const int* plan, const AttentionPlanLayout& layout, int q_heads,
                                 int kv_heads, int head_dim, bf16* out, long long out_stride,
                                 cudaStream_t stream);

// All three, in order: attention of `tokens` rows (the padded count) from a device plan.
void launch_planned_attention(const bf16* q, long long q_stride, const KvView& kv, const int* plan,
                              const AttentionPlanLayout& layout, int tokens, int q_heads,
                              int kv_heads, int head_dim, SplitKWorkspace ws, bf16* out,
                              long long out_stride, cudaStream_t stream);

}  // namespace sparksim::kernels::gpu::detail
