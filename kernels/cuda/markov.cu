// DSpark's Markov-head loop on the device, one step k at a time for all R requests, so that the
// rank-r bias GEMM (W1 rows of the previous tokens times W2^T) reads W2 once per step rather than
// once per request: gather W1[x_{k-1}] (and the confidence head's dot product), one cuBLAS GEMM
// into the step's logits (dspark_model.cu), then softmax and the token. Also the block input
// (anchor embedding, then gamma - 1 mask embeddings). Tolerances: kernels/kernel_tolerances.hpp.
#include <cmath>

#include "kernels/cuda/block_argmax.cuh"
#include "kernels/cuda/launchers.cuh"

namespace sparksim::kernels::gpu::detail {

namespace {

constexpr int kThreads = 256;

__device__ float block_sum(float v) {
  __shared__ float partial[32];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  __syncthreads();
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0f;
  if (threadIdx.x < 32) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  }
  __shared__ float total;
  if (threadIdx.x == 0) total = v;
  __syncthreads();
  return total;
}

__global__ void block_input_kernel(const int* anchors, int gamma, const bf16* embed,
                                   const bf16* mask, int hidden, float* x) {
  const int row = blockIdx.x;
  const bf16* src =
      row % gamma == 0 ? embed + static_cast<long long>(anchors[row / gamma]) * hidden : mask;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    x[static_cast<long long>(row) * hidden + i] = __bfloat162float(src[i]);
  }
}

__global__ void markov_gather_kernel(const int* prev, const bf16* w1, int rank, const bf16* h,
                                     int hidden, int gamma, int k, const bf16* conf_w, float conf_b,
                                     const float* sts_temperature, bf16* w1_rows, float* conf) {
  const int r = blockIdx.x;
  const bf16* w1_row = w1 + static_cast<long long>(prev[r]) * rank;
  float z = 0.0f;
  for (int i = threadIdx.x; i < rank; i += blockDim.x) {
    w1_rows[static_cast<long long>(r) * rank + i] = w1_row[i];
    if (conf != nullptr) z += __bfloat162float(conf_w[hidden + i]) * __bfloat162float(w1_row[i]);
  }
  if (conf == nullptr) return;
  const bf16* hk = h + (static_cast<long long>(r) * gamma + k) * hidden;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    z += __bfloat162float(conf_w[i]) * __bfloat162float(hk[i]);
  }
  z = block_sum(z);
  if (threadIdx.x == 0) {
    conf[r * gamma + k] = 1.0f / (1.0f + expf(-(z + conf_b) / sts_temperature[k]));
  }
}

__global__ void markov_sample_kernel(const float* logits, int gamma, int k, int vocab,
                                     float temperature, const double* uniforms, float* p_draft,
                                     int* tokens, int* prev) {
  const int r = blockIdx.x;
  const long long row = static_cast<long long>(r) * gamma + k;
  const float* x = logits + row * vocab;
  float* p = p_draft + row * vocab;
  const float inv_t = temperature > 0.0f ? 1.0f / temperature : 1.0f;
  float best = 0.0f;
  int best_idx = 0;
  block_row_argmax(x, vocab, best, best_idx);
  float sum = 0.0f;
  for (int j = threadIdx.x; j < vocab; j += blockDim.x) sum += expf((x[j] - best) * inv_t);
  const float inv_sum = 1.0f / block_sum(sum);
  for (int j = threadIdx.x; j < vocab; j += blockDim.x)
    p[j] = expf((x[j] - best) * inv_t) * inv_sum;
  if (temperature <= 0.0f) {
    if (threadIdx.x == 0) {
      tokens[row] = best_idx;
      prev[r] = best_idx;
    }
    return;
  }
  // Inverse CDF on p: per-thread contiguous chunks summed in double, serial scan of the chunks.
  __shared__ double prefix[kThreads + 1];
  __shared__ int found;
  __syncthreads();  // p written by other threads
  const int chunk = (vocab + kThreads - 1) / kThreads;
  const int begin = min(vocab, static_cast<int>(threadIdx.x) * chunk);
  const int end = min(vocab, begin + chunk);
  double local = 0.0;
  for (int j = begin; j < end; ++j) local += p[j];
  prefix[threadIdx.x + 1] = local;
  if (threadIdx.x == 0) found = -1;
  __syncthreads();
  if (threadIdx.x == 0) {
    prefix[0] = 0.0;
    for (int i = 1; i <= kThreads; ++i) prefix[i] += prefix[i - 1];
  }
  __syncthreads();
  const double target = uniforms[row] * prefix[kThreads];
  if (local > 0.0 && target >= prefix[threadIdx.x] && target < prefix[threadIdx.x] + local) {
    double running = prefix[threadIdx.x];
    int pick = end - 1;
    for (int j = begin; j < end; ++j) {
      running += p[j];
      if (p[j] > 0.0f && running > target) {
        pick = j;
        break;
      }
    }
    found = pick;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const int token = found >= 0 ? found : vocab - 1;
    tokens[row] = token;
    prev[r] = token;
  }
}

}  // namespace

void launch_block_input(const int* anchors, int requests, int gamma, const bf16* embed,
                        const bf16* mask, int hidden, float* x, cudaStream_t stream) {
  if (requests == 0) return;
  block_input_kernel<<<requests * gamma, kThreads, 0, stream>>>(anchors, gamma, embed, mask, hidden,
                                                                x);
  SPARKSIM_LAUNCHED();
}

void launch_markov_gather(const int* prev, int requests, const bf16* w1, int rank, const bf16* h,
                          int hidden, int gamma, int k, const bf16* conf_w, float conf_b,
                          const float* sts_temperature, bf16* w1_rows, float* conf,
                          cudaStream_t stream) {
  if (requests == 0) return;
  markov_gather_kernel<<<requests, kThreads, 0, stream>>>(
      prev, w1, rank, h, hidden, gamma, k, conf_w, conf_b, sts_temperature, w1_rows, conf);
  SPARKSIM_LAUNCHED();
}

void launch_markov_sample(const float* logits, int requests, int gamma, int k, int vocab,
                          float temperature, const double* uniforms, float* p_draft, int* tokens,
                          int* prev, cudaStream_t stream) {
  if (requests == 0) return;
  markov_sample_kernel<<<requests, kThreads, 0, stream>>>(logits, gamma, k, vocab, temperature,
                                                          uniforms, p_draft, tokens, prev);
  SPARKSIM_LAUNCHED();
}

}  // namespace sparksim::kernels::gpu::detail
