// Ragged attention over a slot-per-request KV cache, one thread block per (token, query head):
// token t attends to positions 0..token_kv_len[t]-1 of its slot (causal verify: its position + 1;
// the DSpark block: context + whole block, non-causal). Each warp streams a strided share of them
// with an online softmax (lanes split head_dim, scores reduced by shuffles); the warps'
// partial states are merged at the end. Simple, exact in structure, untuned: the verify forward
// plans split-K and tensor-core attention instead (attention_split_k.cu, attention_prefill_tc.cu)
// and keeps this kernel as the fallback (below sm_80, other head dims); the drafter's block
// attention uses it. Tolerance: kernels/kernel_tolerances.hpp.
#include <cmath>

#include "kernels/cuda/launchers.cuh"

namespace sparksim::kernels::gpu::detail {

namespace {

constexpr int kWarps = 4;
constexpr int kMaxPerLane = 8;  // head_dim <= 256

__global__ void ragged_attention_kernel(const bf16* q, long long q_stride, const bf16* k_cache,
                                        const bf16* v_cache, long long layer_offset,
                                        long long slot_stride, int kv_width, const int* token_slot,
                                        const int* token_kv_len, int group, int head_dim,
                                        float scale, bf16* out, long long out_stride) {
  const int t = blockIdx.x;
  const int h = blockIdx.y;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const bf16* qp = q + t * q_stride + static_cast<long long>(h) * head_dim;
  float qv[kMaxPerLane];
  float acc[kMaxPerLane];
#pragma unroll
  for (int i = 0; i < kMaxPerLane; ++i) {
    const int d = lane + 32 * i;
    qv[i] = d < head_dim ? __bfloat162float(qp[d]) * scale : 0.0f;
    acc[i] = 0.0f;
  }
  const long long head_base =
      layer_offset + token_slot[t] * slot_stride + static_cast<long long>(h / group) * head_dim;
  const int count = token_kv_len[t];
  float m = -INFINITY;
  float l = 0.0f;
  for (int j = warp; j < count; j += kWarps) {
    const bf16* kr = k_cache + head_base + static_cast<long long>(j) * kv_width;
    const bf16* vr = v_cache + head_base + static_cast<long long>(j) * kv_width;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < kMaxPerLane; ++i) {
      const int d = lane + 32 * i;
      if (d < head_dim) s += qv[i] * __bfloat162float(kr[d]);
    }
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    const float m_new = fmaxf(m, s);
    const float correction = expf(m - m_new);  // 0 on the first key (m = -inf)
    const float p = expf(s - m_new);
    l = l * correction + p;
#pragma unroll
    for (int i = 0; i < kMaxPerLane; ++i) {
      const int d = lane + 32 * i;
      if (d < head_dim) acc[i] = acc[i] * correction + p * __bfloat162float(vr[d]);
    }
    m = m_new;
  }

  __shared__ float warp_m[kWarps];
  __shared__ float warp_l[kWarps];
  extern __shared__ float warp_acc[];  // [kWarps x head_dim]
  if (lane == 0) {
    warp_m[warp] = m;
    warp_l[warp] = l;
  }
#pragma unroll
  for (int i = 0; i < kMaxPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d < head_dim) warp_acc[warp * head_dim + d] = acc[i];
  }
  __syncthreads();
  float m_all = -INFINITY;
  for (int w = 0; w < kWarps; ++w) m_all = fmaxf(m_all, warp_m[w]);
  float l_all = 0.0f;
  for (int w = 0; w < kWarps; ++w) {
    if (warp_m[w] != -INFINITY) l_all += warp_l[w] * expf(warp_m[w] - m_all);
  }
  bf16* dst = out + t * out_stride + static_cast<long long>(h) * head_dim;
  for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
    float a = 0.0f;
    for (int w = 0; w < kWarps; ++w) {
      if (warp_m[w] != -INFINITY) a += warp_acc[w * head_dim + d] * expf(warp_m[w] - m_all);
    }
    dst[d] = __float2bfloat16(a / l_all);
  }
}

}  // namespace

void launch_ragged_attention(const bf16* q, long long q_stride, const bf16* k_cache,
                             const bf16* v_cache, long long layer_offset, long long slot_stride,
                             int kv_width, const int* token_slot, const int* token_kv_len,
                             int tokens, int q_heads, int group, int head_dim, bf16* out,
                             long long out_stride, cudaStream_t stream) {
  if (tokens == 0) return;
  if (head_dim > 32 * kMaxPerLane) throw std::invalid_argument("attention: head_dim > 256");
  const dim3 grid(static_cast<unsigned>(tokens), static_cast<unsigned>(q_heads));
  const std::size_t shared = sizeof(float) * kWarps * static_cast<std::size_t>(head_dim);
  ragged_attention_kernel<<<grid, 32 * kWarps, shared, stream>>>(
      q, q_stride, k_cache, v_cache, layer_offset, slot_stride, kv_width, token_slot, token_kv_len,
      group, head_dim, 1.0f / sqrtf(static_cast<float>(head_dim)), out, out_stride);
  SPARKSIM_LAUNCHED();
}

}  // namespace sparksim::kernels::gpu::detail
