// Verification by rejection sampling, one thread block per request: thread 0 walks the drafts
// (d_r <= a few dozen, sequential by definition), then the block draws the committed token by an
// inverse CDF over the vocabulary: per-thread contiguous chunk sums in double, a serial exclusive
// scan of the 256 chunk sums, and the one thread whose chunk holds u * total finds the token.
// Draft rows are packed (request r's drafts from row cu_seqlens[r] - r, as RejectionBatch lays
// them out) or, for a step on the device, the drafter's own [R x gamma] rows (from r * gamma).
// Tolerance: kernels/kernel_tolerances.hpp.
#include "kernels/cuda/launchers.cuh"

namespace sparksim::kernels::gpu::detail {

namespace {

constexpr int kThreads = 256;

__device__ double weight_at(const float* pt, const float* pd, bool residual, int j) {
  const double t = pt[j];
  return residual ? fmax(0.0, t - static_cast<double>(pd[j])) : t;
}

__global__ void rejection_kernel(const int* cu_seqlens, int vocab, const float* p_target,
                                 const float* p_draft, const int* draft_tokens,
                                 const double* accept_u, const double* sample_u,
                                 int draft_row_stride, int* accepted, int* committed) {
  const int r = blockIdx.x;
  const int rows = cu_seqlens[r + 1] - cu_seqlens[r];
  const int drafts = rows - 1;
  const int first_draft = draft_row_stride > 0 ? r * draft_row_stride : cu_seqlens[r] - r;
  __shared__ int shared_accepted;
  __shared__ double prefix[kThreads + 1];
  __shared__ int result;
  __shared__ int last_positive;
  if (threadIdx.x == 0) {
    int i = 0;
    for (; i < drafts; ++i) {
      const int row = first_draft + i;
      const int x = draft_tokens[row];
      const double pt = p_target[(static_cast<long long>(cu_seqlens[r]) + i) * vocab + x];
      const double pd = p_draft[static_cast<long long>(row) * vocab + x];
      if (!(accept_u[row] * pd < pt)) break;
    }
    shared_accepted = i;
    result = -1;
    last_positive = -1;
  }
  __syncthreads();
  const int i = shared_accepted;
  const float* pt = p_target + (static_cast<long long>(cu_seqlens[r]) + i) * vocab;
  const float* pd = p_draft + static_cast<long long>(first_draft + i) * vocab;
  bool residual = i < drafts;
  const int chunk = (vocab + kThreads - 1) / kThreads;
  const int begin = min(vocab, static_cast<int>(threadIdx.x) * chunk);
  const int end = min(vocab, begin + chunk);
  for (int attempt = 0; attempt < 2; ++attempt) {
    double local = 0.0;
    int local_last = -1;
    for (int j = begin; j < end; ++j) {
      const double w = weight_at(pt, pd, residual, j);
      if (w > 0.0) {
        local += w;
        local_last = j;
      }
    }
    prefix[threadIdx.x + 1] = local;
    if (local_last >= 0) atomicMax(&last_positive, local_last);
    __syncthreads();
    if (threadIdx.x == 0) {
      prefix[0] = 0.0;
      for (int k = 1; k <= kThreads; ++k) prefix[k] += prefix[k - 1];
    }
    __syncthreads();
    const double total = prefix[kThreads];
    if (total > 0.0) {
      const double target = sample_u[r] * total;
      const double lo = prefix[threadIdx.x];
      if (local > 0.0 && target >= lo && target < lo + local) {
        double running = lo;
        int found = local_last;  // rounding can leave the running sum just short of the target
        for (int j = begin; j < end; ++j) {
          const double w = weight_at(pt, pd, residual, j);
          if (w <= 0.0) continue;
          running += w;
          if (running > target) {
            found = j;
            break;
          }
        }
        result = found;
      }
      __syncthreads();
      if (threadIdx.x == 0) {
        accepted[r] = i;
        committed[r] = result >= 0 ? result : last_positive;
      }
      return;
    }
    // An empty residual (p_t == p_d: rejection has probability 0); sample p_t instead.
    residual = false;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    accepted[r] = i;
    committed[r] = -1;  // p_t all zero: the caller's validation should have caught it
  }
}

}  // namespace

void launch_rejection(const int* cu_seqlens, int requests, int vocab, const float* p_target,
                      const float* p_draft, const int* draft_tokens, const double* accept_u,
                      const double* sample_u, int draft_row_stride, int* accepted, int* committed,
                      cudaStream_t stream) {
  if (requests == 0) return;
  rejection_kernel<<<requests, kThreads, 0, stream>>>(cu_seqlens, vocab, p_target, p_draft,
                                                      draft_tokens, accept_u, sample_u,
                                                      draft_row_stride, accepted, committed);
  SPARKSIM_LAUNCHED();
}

}  // namespace sparksim::kernels::gpu::detail
