// A block-wide argmax shared by the drafter's sampler (markov.cu) and the greedy verification
// of a step (greedy_step.cu): both must pick the same token on a tie, the first maximum, as
// std::max_element does in the CPU references.
#pragma once

#include <cmath>

namespace sparksim::kernels::gpu::detail {

// Block-wide (max value, smallest index among the maxima): the first maximum, as std::max_element.
__device__ inline void block_argmax(float& v, int& idx) {
  __shared__ float pv[32];
  __shared__ int pi[32];
  for (int off = 16; off > 0; off >>= 1) {
    const float ov = __shfl_xor_sync(0xffffffffu, v, off);
    const int oi = __shfl_xor_sync(0xffffffffu, idx, off);
    if (ov > v || (ov == v && oi < idx)) {
      v = ov;
      idx = oi;
    }
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) {
    pv[threadIdx.x / 32] = v;
    pi[threadIdx.x / 32] = idx;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w) {
      if (pv[w] > pv[0] || (pv[w] == pv[0] && pi[w] < pi[0])) {
        pv[0] = pv[w];
        pi[0] = pi[w];
      }
    }
  }
  __syncthreads();
  v = pv[0];
  idx = pi[0];
}

// The first maximum of row x [n] over the block: every thread gets its value and index.
__device__ inline void block_row_argmax(const float* x, int n, float& best, int& best_idx) {
  best = -INFINITY;
  best_idx = n;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    if (x[j] > best) {  // strided ascending j: the first maximum of this thread
      best = x[j];
      best_idx = j;
    }
  }
  block_argmax(best, best_idx);
}

}  // namespace sparksim::kernels::gpu::detail
