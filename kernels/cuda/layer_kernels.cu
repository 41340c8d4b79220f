// Per-token kernels of a decoder layer: RMSNorm, RoPE, KV append, SwiGLU, embedding gather,
// softmax. Tolerances and their reasons: kernels/kernel_tolerances.hpp.
#include <cmath>

#include "kernels/cuda/launchers.cuh"

namespace sparksim::kernels::gpu::detail {

namespace {

constexpr int kThreads = 256;

__device__ float warp_sum(float v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

__device__ float warp_max(float v) {
  for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

// Block-wide sum or max (blockDim.x a multiple of 32, <= 1024); every thread gets the result.
template <bool kMax>
__device__ float block_reduce(float v) {
  __shared__ float partial[32];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  v = kMax ? warp_max(v) : warp_sum(v);
  __syncthreads();  // partial[] may still be read by a previous call
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  const int warps = blockDim.x / 32;
  v = lane < warps ? partial[lane] : (kMax ? -INFINITY : 0.0f);
  return kMax ? warp_max(v) : warp_sum(v);
}

__device__ long long row_start(RowLayout l, int row, int row_len) {
  return l.base + static_cast<long long>(row / l.per_token) * l.token_stride +
         static_cast<long long>(row % l.per_token) * row_len;
}

__device__ float to_float(float v) {
  return v;
}
__device__ float to_float(bf16 v) {
  return __bfloat162float(v);
}

template <class In>
__global__ void rms_norm_kernel(const In* x, RowLayout in, const bf16* gain, int n, float eps,
                                bf16* out, RowLayout out_layout) {
  const In* xr = x + row_start(in, blockIdx.x, n);
  bf16* yr = out + row_start(out_layout, blockIdx.x, n);
  float sum_sq = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const float v = to_float(xr[i]);
    sum_sq += v * v;
  }
  const float inv = rsqrtf(block_reduce<false>(sum_sq) / n + eps);
  // In place is safe: each thread rewrites only the elements it read, after the reduction.
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    yr[i] = __float2bfloat16(to_float(xr[i]) * inv * __bfloat162float(gain[i]));
  }
}

__global__ void rope_kernel(bf16* x, RowLayout layout, const int* token_pos, int head_dim,
                            double theta) {
  bf16* head = x + row_start(layout, blockIdx.x, head_dim);
  const int pos = token_pos[blockIdx.x / layout.per_token];
  const int half = head_dim / 2;
  for (int i = threadIdx.x; i < half; i += blockDim.x) {
    // Double angles: at position 8192 a float angle would be off by ~1e-3 rad.
    double s;
    double c;
    sincos(pos * pow(theta, -2.0 * i / head_dim), &s, &c);
    const float a = __bfloat162float(head[i]);
    const float b = __bfloat162float(head[i + half]);
    head[i] = __float2bfloat16(static_cast<float>(a * c - b * s));
    head[i + half] = __float2bfloat16(static_cast<float>(b * c + a * s));
  }
}

__global__ void kv_append_kernel(const bf16* k_src, const bf16* v_src, long long src_stride,
                                 const int* token_slot, const int* token_pos, bf16* k_cache,
                                 bf16* v_cache, long long layer_offset, long long slot_stride,
                                 int kv_width) {
  const int t = blockIdx.x;
  const long long dst =
      layer_offset + token_slot[t] * slot_stride + static_cast<long long>(token_pos[t]) * kv_width;
  for (int i = threadIdx.x; i < kv_width; i += blockDim.x) {
    k_cache[dst + i] = k_src[t * src_stride + i];
    v_cache[dst + i] = v_src[t * src_stride + i];
  }
}

__global__ void swiglu_kernel(const bf16* gate_up, int ffn, bf16* out) {
  const bf16* row = gate_up + static_cast<long long>(blockIdx.x) * 2 * ffn;
  bf16* dst = out + static_cast<long long>(blockIdx.x) * ffn;
  for (int i = threadIdx.x; i < ffn; i += blockDim.x) {
    const float g = __bfloat162float(row[i]);
    dst[i] = __float2bfloat16(g / (1.0f + expf(-g)) * __bfloat162float(row[ffn + i]));
  }
}

__global__ void embed_kernel(const int* tokens, const bf16* embed, int hidden, float* x) {
  const bf16* row = embed + static_cast<long long>(tokens[blockIdx.x]) * hidden;
  float* dst = x + static_cast<long long>(blockIdx.x) * hidden;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) dst[i] = __bfloat162float(row[i]);
}

__global__ void gather_rows_kernel(const float* src, const int* rows, int width, float* dst) {
  const float* row = src + static_cast<long long>(rows[blockIdx.x]) * width;
  float* out = dst + static_cast<long long>(blockIdx.x) * width;
  for (int i = threadIdx.x; i < width; i += blockDim.x) out[i] = row[i];
}

__global__ void softmax_kernel(const float* logits, int n, float inv_temperature, float* out) {
  const float* row = logits + static_cast<long long>(blockIdx.x) * n;
  float* dst = out + static_cast<long long>(blockIdx.x) * n;
  float m = -INFINITY;
  for (int i = threadIdx.x; i < n; i += blockDim.x) m = fmaxf(m, row[i] * inv_temperature);
  m = block_reduce<true>(m);
  float sum = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) sum += expf(row[i] * inv_temperature - m);
  const float inv_sum = 1.0f / block_reduce<false>(sum);
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    dst[i] = expf(row[i] * inv_temperature - m) * inv_sum;
  }
}

}  // namespace

template <class In>
void launch_rms_norm(const In* x, RowLayout in, const bf16* gain, int rows, int n, float eps,
                     bf16* out, RowLayout out_layout, cudaStream_t stream) {
  if (rows == 0) return;
  rms_norm_kernel<In><<<rows, kThreads, 0, stream>>>(x, in, gain, n, eps, out, out_layout);
  SPARKSIM_LAUNCHED();
}
template void launch_rms_norm<float>(const float*, RowLayout, const bf16*, int, int, float, bf16*,
                                     RowLayout, cudaStream_t);
template void launch_rms_norm<bf16>(const bf16*, RowLayout, const bf16*, int, int, float, bf16*,
                                    RowLayout, cudaStream_t);

void launch_rope(bf16* x, RowLayout layout, const int* token_pos, int rows, int head_dim,
                 double theta, cudaStream_t stream) {
  if (rows == 0) return;
  rope_kernel<<<rows, 64, 0, stream>>>(x, layout, token_pos, head_dim, theta);
  SPARKSIM_LAUNCHED();
}

void launch_kv_append(const bf16* k_src, const bf16* v_src, long long src_stride, int tokens,
                      const int* token_slot, const int* token_pos, bf16* k_cache, bf16* v_cache,
                      long long layer_offset, long long slot_stride, int kv_width,
                      cudaStream_t stream) {
  if (tokens == 0) return;
  kv_append_kernel<<<tokens, 128, 0, stream>>>(k_src, v_src, src_stride, token_slot, token_pos,
                                               k_cache, v_cache, layer_offset, slot_stride,
                                               kv_width);
  SPARKSIM_LAUNCHED();
}

void launch_swiglu(const bf16* gate_up, int tokens, int ffn, bf16* out, cudaStream_t stream) {
  if (tokens == 0) return;
  swiglu_kernel<<<tokens, kThreads, 0, stream>>>(gate_up, ffn, out);
  SPARKSIM_LAUNCHED();
}

void launch_embed(const int* tokens, int count, const bf16* embed, int hidden, float* x,
                  cudaStream_t stream) {
  if (count == 0) return;
  embed_kernel<<<count, kThreads, 0, stream>>>(tokens, embed, hidden, x);
  SPARKSIM_LAUNCHED();
}

void launch_gather_rows(const float* src, const int* rows, int count, int width, float* dst,
                        cudaStream_t stream) {
  if (count == 0) return;
  gather_rows_kernel<<<count, kThreads, 0, stream>>>(src, rows, width, dst);
  SPARKSIM_LAUNCHED();
}

void launch_softmax(const float* logits, int rows, int n, float inv_temperature, float* out,
                    cudaStream_t stream) {
  if (rows == 0) return;
  softmax_kernel<<<rows, kThreads, 0, stream>>>(logits, n, inv_temperature, out);
  SPARKSIM_LAUNCHED();
}

}  // namespace sparksim::kernels::gpu::detail
