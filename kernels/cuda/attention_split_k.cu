// Split-K decode attention (FlashDecoding style, GQA-aware): one block per (request, KV head,
// split) loads its slice of the request's keys once, in 64-key tiles, and attends all the
// group's query rows with it (q heads per KV head x the request's verify width, <= 64 rows) on
// tensor cores (attention_tile.cuh). Each split writes its normalised output and log-sum-exp per
// row; the combine kernel merges a token's splits (combine_partials_lse of attention_plan.hpp is
// the same math on the host, CPU-tested). Also the dispatcher that runs a whole planned batch.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "kernels/cuda/attention_paths.cuh"
#include "kernels/cuda/attention_tile.cuh"

namespace sparksim::kernels::gpu::detail {

namespace {

template <int D>
__global__ void __launch_bounds__(tile::kThreads)
    split_k_attention_kernel(const bf16* q, long long q_stride, KvView kv, const int* plan,
                             int split_offset, int q_heads, int group, float scale,
                             SplitKWorkspace ws) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int item = blockIdx.x;
  if (item >= plan[0]) return;  // the batch has fewer items than the layout's capacity
  const int g = blockIdx.y;
  const int* it = plan + split_offset + item * AttentionPlanLayout::kItemInts;
  const int first = it[0];
  const int width = it[1];
  const int context = it[2];
  const int slot = it[3];
  const int key_begin = it[4];
  const int key_end = it[5];
  const int partial_row = it[6];
  const int rows = width * group;  // <= tile::kRows (attention_path)

  extern __shared__ __align__(128) unsigned char shared_bytes[];
  auto& sm = *reinterpret_cast<tile::Shared<D>*>(shared_bytes);
  // Row r: token r / group of the request, q head g * group + r % group.
  tile::load_query_rows<D>(sm, q, q_stride, first, 0, rows, group, g, context);
  const long long head_base =
      kv.layer_offset + slot * kv.slot_stride + static_cast<long long>(g) * D;
  tile::attend<D>(sm, kv.k_cache + head_base, kv.v_cache + head_base, kv.kv_width, key_begin,
                  key_end, scale);

  // Each warp writes its own rows (their state is final after attend's last __syncwarp).
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  for (int r = 16 * warp; r < 16 * warp + 16 && r < rows; ++r) {
    const long long row =
        static_cast<long long>(partial_row + r / group) * q_heads + g * group + r % group;
    const float l = sm.l[r];
    // A row whose keys all lie past this split's start sees none of them: an empty partial.
    if (lane == 0) ws.lse[row] = l > 0.0f ? sm.m[r] + logf(l) : -INFINITY;
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    for (int d = lane; d < D; d += 32) {
      ws.o[row * D + d] = sm.o[r * tile::Shared<D>::kLdo + d] * inv;
    }
  }
#else
  __trap();  // the host never launches it below sm_80 (tile_attention_supports)
#endif
}

__global__ void split_k_combine_kernel(const int* plan, int token_offset, int token_capacity,
                                       int q_heads, int head_dim, SplitKWorkspace ws, bf16* out,
                                       long long out_stride) {
  const int t = blockIdx.x;
  const int h = blockIdx.y;
  const int splits = plan[token_offset + t];
  if (splits == kTokenOnTensorCorePath) return;
  bf16* dst = out + t * out_stride + static_cast<long long>(h) * head_dim;
  const int first = plan[token_offset + token_capacity + t];
  const int stride = plan[token_offset + 2 * token_capacity + t];
  float max_lse = -INFINITY;
  for (int s = 0; s < splits; ++s) {
    max_lse = fmaxf(max_lse, ws.lse[static_cast<long long>(first + s * stride) * q_heads + h]);
  }
  for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
    float acc = 0.0f;
    float weight_sum = 0.0f;
    // Padding tokens (no splits) and rows that saw no key (impossible for a real row) get 0.
    if (max_lse != -INFINITY) {
      for (int s = 0; s < splits; ++s) {
        const long long row = static_cast<long long>(first + s * stride) * q_heads + h;
        const float w = expf(ws.lse[row] - max_lse);  // 0 for an empty partial
        weight_sum += w;
        acc += w * ws.o[row * head_dim + d];
      }
    }
    dst[d] = __float2bfloat16(weight_sum > 0.0f ? acc / weight_sum : 0.0f);
  }
}

template <int D>
void launch_split_k(const bf16* q, long long q_stride, const KvView& kv, const int* plan,
                    const AttentionPlanLayout& layout, int q_heads, int kv_heads,
                    SplitKWorkspace ws, cudaStream_t stream) {
  static const std::size_t shared = tile::set_shared_bytes<D>(split_k_attention_kernel<D>);
  const dim3 grid(static_cast<unsigned>(layout.split_items), static_cast<unsigned>(kv_heads));
  split_k_attention_kernel<D><<<grid, tile::kThreads, shared, stream>>>(
      q, q_stride, kv, plan, layout.split_offset(), q_heads, q_heads / kv_heads,
      1.0f / sqrtf(static_cast<float>(D)), ws);
  SPARKSIM_LAUNCHED();
}

}  // namespace

bool tile_attention_supports(int head_dim) {
  static const bool ampere_or_later = [] {
    int device = 0;
    int major = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return major >= 8;
  }();
  return ampere_or_later && (head_dim == 32 || head_dim == 64 || head_dim == 128);
}

bool ragged_attention_forced() {
  static const bool forced = [] {
    const char* v = std::getenv("SPARKSIM_ATTENTION");
    return v != nullptr && std::string(v) == "ragged";
  }();
  return forced;
}

void launch_split_k_attention(const bf16* q, long long q_stride, const KvView& kv, const int* plan,
                              const AttentionPlanLayout& layout, int q_heads, int kv_heads,
                              int head_dim, SplitKWorkspace ws, cudaStream_t stream) {
  switch (head_dim) {
    case 32:
      return launch_split_k<32>(q, q_stride, kv, plan, layout, q_heads, kv_heads, ws, stream);
    case 64:
      return launch_split_k<64>(q, q_stride, kv, plan, layout, q_heads, kv_heads, ws, stream);
    case 128:
      return launch_split_k<128>(q, q_stride, kv, plan, layout, q_heads, kv_heads, ws, stream);
    default:
      throw std::invalid_argument("split-K attention: head_dim must be 32, 64 or 128");
  }
}

void launch_split_k_combine(const int* plan, const AttentionPlanLayout& layout, int tokens,
                            int q_heads, int head_dim, SplitKWorkspace ws, bf16* out,
                            long long out_stride, cudaStream_t stream) {
  if (tokens == 0) return;
  const dim3 grid(static_cast<unsigned>(tokens), static_cast<unsigned>(q_heads));
  split_k_combine_kernel<<<grid, 128, 0, stream>>>(plan, layout.token_offset(), layout.tokens,
                                                   q_heads, head_dim, ws, out, out_stride);
  SPARKSIM_LAUNCHED();
}

void launch_planned_attention(const bf16* q, long long q_stride, const KvView& kv, const int* plan,
                              const AttentionPlanLayout& layout, int tokens, int q_heads,
                              int kv_heads, int head_dim, SplitKWorkspace ws, bf16* out,
                              long long out_stride, cudaStream_t stream) {
  if (tokens == 0) return;
  launch_split_k_attention(q, q_stride, kv, plan, layout, q_heads, kv_heads, head_dim, ws, stream);
  if (tokens >= layout.min_tensor_core_width) {
    launch_prefill_tc_attention(q, q_stride, kv, plan, layout, q_heads, kv_heads, head_dim, out,
                                out_stride, stream);
  }
  launch_split_k_combine(plan, layout, tokens, q_heads, head_dim, ws, out, out_stride, stream);
}

}  // namespace sparksim::kernels::gpu::detail
