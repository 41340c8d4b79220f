// The tensor-core attention tile shared by the split-K decode kernel (attention_split_k.cu) and
// the prefill kernel (attention_prefill_tc.cu): a block of 4 warps holds up to 64 query rows of
// one KV head in shared memory and streams a key range in 64-key tiles, each loaded once for all
// rows. S = Q K^T and O += P V run on bf16 WMMA fragments with fp32 accumulation (sm_80+); the
// online softmax runs on fp32 scores in shared memory, one warp per 16-row strip, so no fragment
// layout is assumed. P is rounded to bf16 for the P V product (as FlashAttention does) and the
// denominator sums the rounded values, so the weights stay a convex combination.
#pragma once

#include <cmath>

#include <mma.h>

#include "kernels/cuda/cuda_check.cuh"

namespace sparksim::kernels::gpu::detail::tile {

constexpr int kRows = 64;  // query rows per block (attention_plan.hpp tile_rows)
constexpr int kKeys = 64;  // keys per shared-memory tile (tile_keys)
constexpr int kWarps = 4;  // warp w owns rows [16 w, 16 w + 16)
constexpr int kThreads = 32 * kWarps;

// Shared memory of one block for head_dim D. Leading dimensions are padded (fewer bank
// conflicts) and keep every WMMA pointer 32-byte aligned: 16 rows x ld x element size is a
// multiple of 32 bytes for D in {32, 64, 128}.
template <int D>
struct Shared {
  static_assert(D % 16 == 0 && D <= 128, "tile attention: head_dim a multiple of 16, <= 128");
  static constexpr int kLdh = D + 8;      // bf16 Q, K, V rows
  static constexpr int kLds = kKeys + 4;  // fp32 scores
  static constexpr int kLdp = kKeys + 8;  // bf16 probabilities
  static constexpr int kLdo = D + 4;      // fp32 output accumulators
  bf16 q[kRows * kLdh];
  bf16 k[kKeys * kLdh];
  bf16 v[kKeys * kLdh];
  float s[kRows * kLds];
  bf16 p[kRows * kLdp];
  float o[kRows * kLdo];
  float m[kRows];    // running max of the scaled scores
  float l[kRows];    // running sum of the (bf16-rounded) probabilities
  int limit[kRows];  // keys [0, limit) are visible to the row; 0: a padding row
};

// Copies `count` rows of D bf16 (row r at src + r * src_stride, 16-byte aligned) into dst
// [kKeys or kRows x kLdh], zero-filling rows [count, rows).
template <int D>
__device__ void load_rows(bf16* dst, const bf16* src, long long src_stride, int count, int rows) {
  constexpr int kVecs = D / 8;  // 16-byte vectors per row
  for (int i = threadIdx.x; i < rows * kVecs; i += kThreads) {
    const int r = i / kVecs;
    const int c = i % kVecs;
    uint4 value = make_uint4(0, 0, 0, 0);
    if (r < count) value = *reinterpret_cast<const uint4*>(src + r * src_stride + c * 8);
    *reinterpret_cast<uint4*>(dst + r * Shared<D>::kLdh + c * 8) = value;
  }
}

// Sets the running state of every row (m = -inf, l = 0, o = 0). Rows' Q and limits are the
// caller's. Followed by a __syncthreads in the caller.
template <int D>
__device__ void reset_state(Shared<D>& sm) {
  for (int i = threadIdx.x; i < kRows * Shared<D>::kLdo; i += kThreads) sm.o[i] = 0.0f;
  for (int r = threadIdx.x; r < kRows; r += kThreads) {
    sm.m[r] = -INFINITY;
    sm.l[r] = 0.0f;
  }
}

// Loads the block's query rows and their key limits, resets the running state and synchronises;
// every thread must call it. Tile row r < rows is the request's row row_begin + r: token first +
// (row_begin + r) / group, q head g * group + (row_begin + r) % group, seeing keys [0, context +
// (row_begin + r) / group + 1). Rows from `rows` on are zero padding that see no key.
template <int D>
__device__ void load_query_rows(Shared<D>& sm, const bf16* q, long long q_stride, int first,
                                int row_begin, int rows, int group, int g, int context) {
  constexpr int kVecs = D / 8;  // 16-byte vectors per row
  for (int i = threadIdx.x; i < kRows * kVecs; i += kThreads) {
    const int r = i / kVecs;
    const int c = i % kVecs;
    uint4 value = make_uint4(0, 0, 0, 0);
    if (r < rows) {
      const long long token = first + (row_begin + r) / group;
      const int head = g * group + (row_begin + r) % group;
      value = *reinterpret_cast<const uint4*>(q + token * q_stride + head * D + c * 8);
    }
    *reinterpret_cast<uint4*>(sm.q + r * Shared<D>::kLdh + c * 8) = value;
  }
  for (int r = threadIdx.x; r < kRows; r += kThreads) {
    sm.limit[r] = r < rows ? context + (row_begin + r) / group + 1 : 0;
  }
  reset_state<D>(sm);
  __syncthreads();
}

// Streams keys [key_begin, key_end) of one KV head (key j's K at k_head + j * kv_width, V
// likewise) through the block's rows: after it, row r holds m, l and the unnormalised o over
// the keys below its limit. Every thread of the block must call it (it synchronises).
template <int D>
__device__ void attend(Shared<D>& sm, const bf16* k_head, const bf16* v_head, int kv_width,
                       int key_begin, int key_end, float scale) {
  using namespace nvcuda;
  constexpr int kLdh = Shared<D>::kLdh;
  constexpr int kLds = Shared<D>::kLds;
  constexpr int kLdp = Shared<D>::kLdp;
  constexpr int kLdo = Shared<D>::kLdo;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int row0 = 16 * warp;
  // Rows are filled from 0, so a strip whose first row is padding is all padding: its warp only
  // helps load (a decode block of width x group = 16 rows leaves three warps so).
  const bool idle = sm.limit[row0] == 0;
  for (int k0 = key_begin; k0 < key_end; k0 += kKeys) {
    const int count = min(kKeys, key_end - k0);
    __syncthreads();  // every warp is done with the previous tile
    load_rows<D>(sm.k, k_head + static_cast<long long>(k0) * kv_width, kv_width, count, kKeys);
    load_rows<D>(sm.v, v_head + static_cast<long long>(k0) * kv_width, kv_width, count, kKeys);
    __syncthreads();
    if (idle) continue;

    // S strip [16 x kKeys] = Q strip K^T: K rows are K^T's columns (col_major matrix_b).
    for (int n = 0; n < kKeys / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
      for (int kk = 0; kk < D / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> b;
        wmma::load_matrix_sync(a, sm.q + row0 * kLdh + kk * 16, kLdh);
        wmma::load_matrix_sync(b, sm.k + n * 16 * kLdh + kk * 16, kLdh);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(sm.s + row0 * kLds + n * 16, acc, kLds, wmma::mem_row_major);
    }
    __syncwarp();

    // Online softmax of the strip's rows: lanes take keys lane and lane + 32.
    for (int rr = 0; rr < 16; ++rr) {
      const int r = row0 + rr;
      const int visible = min(sm.limit[r], key_end) - k0;  // keys of this tile the row sees
      const float m_old = sm.m[r];
      const float s0 = lane < visible ? sm.s[r * kLds + lane] * scale : -INFINITY;
      const float s1 = lane + 32 < visible ? sm.s[r * kLds + lane + 32] * scale : -INFINITY;
      float tile_max = fmaxf(s0, s1);
      for (int off = 16; off > 0; off >>= 1) {
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, off));
      }
      const float m_new = fmaxf(m_old, tile_max);
      // Nothing visible yet: probabilities 0, state unchanged (exp(-inf - -inf) would be NaN).
      const bool none = m_new == -INFINITY;
      const bf16 p0 = __float2bfloat16(none ? 0.0f : expf(s0 - m_new));
      const bf16 p1 = __float2bfloat16(none ? 0.0f : expf(s1 - m_new));
      const float correction = none ? 1.0f : expf(m_old - m_new);
      float p_sum = __bfloat162float(p0) + __bfloat162float(p1);
      for (int off = 16; off > 0; off >>= 1) {
        p_sum += __shfl_xor_sync(0xffffffffu, p_sum, off);
      }
      sm.p[r * kLdp + lane] = p0;
      sm.p[r * kLdp + lane + 32] = p1;
      for (int d = lane; d < D; d += 32) sm.o[r * kLdo + d] *= correction;
      if (lane == 0) {  // every lane read m_old before the shuffles above
        sm.m[r] = m_new;
        sm.l[r] = sm.l[r] * correction + p_sum;
      }
    }
    __syncwarp();

    // O strip [16 x D] += P strip [16 x kKeys] V [kKeys x D].
    for (int n = 0; n < D / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::load_matrix_sync(acc, sm.o + row0 * kLdo + n * 16, kLdo, wmma::mem_row_major);
      for (int kk = 0; kk < kKeys / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> b;
        wmma::load_matrix_sync(a, sm.p + row0 * kLdp + kk * 16, kLdp);
        wmma::load_matrix_sync(b, sm.v + kk * 16 * kLdh + n * 16, kLdh);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(sm.o + row0 * kLdo + n * 16, acc, kLdo, wmma::mem_row_major);
    }
    __syncwarp();
  }
}

// Raises the kernel's dynamic shared memory above the 48 KB default and returns the block's
// bytes. Each launcher calls it once (a function-local static), so before any graph capture: the
// first launch of a VerifyModel is eager (VerifyModel::graph_for).
template <int D, class Kernel>
std::size_t set_shared_bytes(Kernel kernel) {
  const std::size_t n = sizeof(Shared<D>);
  SPARKSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(n)));
  return n;
}

}  // namespace sparksim::kernels::gpu::detail::tile
