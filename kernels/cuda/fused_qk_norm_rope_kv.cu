// Qwen3's attention input after the QKV projection in one launch instead of five (two per-head
// RMSNorms, two RoPEs, the KV append): one block per (token, head) of the query and key heads.
// A query head is normalised, rotated and written back in place (the attention reads it there);
// a key head is normalised, rotated and written to the cache at the token's (slot, position),
// with the value head of the same index copied beside it. The arithmetic is the unfused
// kernels' (fp32 statistics, the normalised value rounded to bf16 as the unfused path stores it,
// angles in double), so the fused and unfused forwards agree up to the order of one fp32 sum.
// Reference: qk_norm_rope_ref (kernels/reference/ops_ref.hpp) and a cache write; tolerance
// kFusedQkNormRopeMaxRel (kernels/kernel_tolerances.hpp).
#include <cmath>

#include "kernels/cuda/launchers.cuh"

namespace sparksim::kernels::gpu::detail {

namespace {

constexpr int kThreads = 64;  // head_dim / 2 for Qwen3's 128: one rotation pair per thread

__device__ float block_sum64(float v) {
  __shared__ float partial[kThreads / 32];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  __syncthreads();  // partial[] may still be read by a previous call
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < kThreads / 32; ++w) total += partial[w];
  return total;
}

__global__ void qk_norm_rope_kv_kernel(bf16* qkv, int q_heads, int kv_heads, int head_dim,
                                       const bf16* q_norm, const bf16* k_norm, float eps,
                                       double theta, const int* token_slot, const int* token_pos,
                                       bf16* k_cache, bf16* v_cache, long long layer_offset,
                                       long long slot_stride) {
  const int t = blockIdx.x;
  const int head = blockIdx.y;  // query heads first, then key heads
  const bool is_query = head < q_heads;
  const int row_width = (q_heads + 2 * kv_heads) * head_dim;
  bf16* src = qkv + static_cast<long long>(t) * row_width + static_cast<long long>(head) * head_dim;
  const bf16* gain = is_query ? q_norm : k_norm;
  const int half = head_dim / 2;
  const int pos = token_pos[t];

  float sum_sq = 0.0f;
  for (int i = threadIdx.x; i < half; i += blockDim.x) {
    const float a = __bfloat162float(src[i]);
    const float b = __bfloat162float(src[i + half]);
    sum_sq += a * a + b * b;
  }
  const float inv = rsqrtf(block_sum64(sum_sq) / head_dim + eps);

  bf16* dst = src;  // a query head stays in place
  if (!is_query) {
    const int kv_head = head - q_heads;
    const long long at = layer_offset + token_slot[t] * slot_stride +
                         static_cast<long long>(pos) * kv_heads * head_dim +
                         static_cast<long long>(kv_head) * head_dim;
    dst = k_cache + at;
    const bf16* v_src = src + static_cast<long long>(kv_heads) * head_dim;
    for (int i = threadIdx.x; i < head_dim; i += blockDim.x) v_cache[at + i] = v_src[i];
  }
  for (int i = threadIdx.x; i < half; i += blockDim.x) {
    // Each thread reads only its own pair before writing it: in place is safe.
    const float a = __bfloat162float(
        __float2bfloat16(__bfloat162float(src[i]) * inv * __bfloat162float(gain[i])));
    const float b = __bfloat162float(
        __float2bfloat16(__bfloat162float(src[i + half]) * inv * __bfloat162float(gain[i + half])));
    // Double angles: at position 8192 a float angle would be off by ~1e-3 rad.
    double s;
    double c;
    sincos(pos * pow(theta, -2.0 * i / head_dim), &s, &c);
    dst[i] = __float2bfloat16(static_cast<float>(a * c - b * s));
    dst[i + half] = __float2bfloat16(static_cast<float>(b * c + a * s));
  }
}

}  // namespace

void launch_qk_norm_rope_kv_append(bf16* qkv, int tokens, int q_heads, int kv_heads, int head_dim,
                                   const bf16* q_norm, const bf16* k_norm, float eps, double theta,
                                   const int* token_slot, const int* token_pos, bf16* k_cache,
                                   bf16* v_cache, long long layer_offset, long long slot_stride,
                                   cudaStream_t stream) {
  if (tokens == 0) return;
  const dim3 grid(static_cast<unsigned>(tokens), static_cast<unsigned>(q_heads + kv_heads));
  qk_norm_rope_kv_kernel<<<grid, kThreads, 0, stream>>>(
      qkv, q_heads, kv_heads, head_dim, q_norm, k_norm, eps, theta, token_slot, token_pos, k_cache,
      v_cache, layer_offset, slot_stride);
  SPARKSIM_LAUNCHED();
}

}  // namespace sparksim::kernels::gpu::detail
