// The small kernels of a greedy engine step on the device (launchers.cuh): captured states into
// the drafter's context input, drafted tokens into the verify batch, the target's argmax per
// row, and the acceptance walk per request. Their reference is verify_step_ref's greedy path.
#include "kernels/cuda/block_argmax.cuh"
#include "kernels/cuda/launchers.cuh"

namespace sparksim::kernels::gpu::detail {

namespace {

constexpr int kThreads = 256;

__global__ void store_states_kernel(const float* x, int hidden, bf16* states, long long stride,
                                    long long offset) {
  const float* row = x + static_cast<long long>(blockIdx.x) * hidden;
  bf16* dst = states + static_cast<long long>(blockIdx.x) * stride + offset;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) dst[i] = __float2bfloat16_rn(row[i]);
}

__global__ void place_drafts_kernel(const int* drafts, int gamma, const int* cu, int* tokens) {
  const int r = blockIdx.x;
  const int d = cu[r + 1] - cu[r] - 1;  // drafts verified for request r (<= gamma)
  for (int i = threadIdx.x; i < d; i += blockDim.x) tokens[cu[r] + 1 + i] = drafts[r * gamma + i];
}

__global__ void row_argmax_kernel(const float* logits, int vocab, int* argmax) {
  const float* x = logits + static_cast<long long>(blockIdx.x) * vocab;
  float best = 0.0f;
  int best_idx = 0;
  block_row_argmax(x, vocab, best, best_idx);
  if (threadIdx.x == 0) argmax[blockIdx.x] = best_idx;
}

__global__ void greedy_accept_kernel(const int* cu, const int* tokens, const int* argmax,
                                     int requests, int* accepted, int* committed) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= requests) return;
  const int first = cu[r];
  const int drafts = cu[r + 1] - first - 1;
  int a = 0;
  while (a < drafts && argmax[first + a] == tokens[first + 1 + a]) ++a;
  accepted[r] = a;
  committed[r] = argmax[first + a];
}

}  // namespace

void launch_store_states(const float* x, int tokens, int hidden, bf16* states, long long stride,
                         long long offset, cudaStream_t stream) {
  if (tokens == 0) return;
  store_states_kernel<<<tokens, kThreads, 0, stream>>>(x, hidden, states, stride, offset);
  SPARKSIM_LAUNCHED();
}

void launch_place_drafts(const int* drafts, int gamma, const int* cu, int requests, int* tokens,
                         cudaStream_t stream) {
  if (requests == 0) return;
  place_drafts_kernel<<<requests, 32, 0, stream>>>(drafts, gamma, cu, tokens);
  SPARKSIM_LAUNCHED();
}

void launch_row_argmax(const float* logits, int rows, int vocab, int* argmax, cudaStream_t stream) {
  if (rows == 0) return;
  row_argmax_kernel<<<rows, kThreads, 0, stream>>>(logits, vocab, argmax);
  SPARKSIM_LAUNCHED();
}

void launch_greedy_accept(const int* cu, const int* tokens, const int* argmax, int requests,
                          int* accepted, int* committed, cudaStream_t stream) {
  if (requests == 0) return;
  greedy_accept_kernel<<<(requests + 127) / 128, 128, 0, stream>>>(cu, tokens, argmax, requests,
                                                                   accepted, committed);
  SPARKSIM_LAUNCHED();
}

}  // namespace sparksim::kernels::gpu::detail
