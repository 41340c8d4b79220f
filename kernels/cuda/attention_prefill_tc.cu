// Tensor-core prefill attention (flash-attention style): one block per (64-row tile of a prefill
// chunk, KV head). A tile's rows are the chunk's (token, group head) pairs, so every K/V tile is
// loaded once for the whole GQA group; keys stream in 64-key tiles through bf16 WMMA with fp32
// accumulation and an online softmax (attention_tile.cuh), causal within the chunk (row j of the
// request sees its context + j + 1 keys). The block stops at the last key its last row sees.
#include <stdexcept>

#include "kernels/cuda/attention_paths.cuh"
#include "kernels/cuda/attention_tile.cuh"

namespace sparksim::kernels::gpu::detail {

namespace {

template <int D>
__global__ void __launch_bounds__(tile::kThreads)
    prefill_tc_attention_kernel(const bf16* q, long long q_stride, KvView kv, const int* plan,
                                int tile_offset, int group, float scale, bf16* out,
                                long long out_stride) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int item = blockIdx.x;
  if (item >= plan[1]) return;  // the batch has fewer tiles than the layout's capacity
  const int g = blockIdx.y;
  const int* it = plan + tile_offset + item * AttentionPlanLayout::kItemInts;
  const int first = it[0];
  const int width = it[1];
  const int context = it[2];
  const int slot = it[3];
  const int row_begin = it[4];
  const int rows = min(tile::kRows, width * group - row_begin);

  extern __shared__ __align__(128) unsigned char shared_bytes[];
  auto& sm = *reinterpret_cast<tile::Shared<D>*>(shared_bytes);
  // Tile row r: request row row_begin + r = token (row_begin + r) / group, head g * group + the
  // remainder.
  tile::load_query_rows<D>(sm, q, q_stride, first, row_begin, rows, group, g, context);
  const long long head_base =
      kv.layer_offset + slot * kv.slot_stride + static_cast<long long>(g) * D;
  const int key_end = context + (row_begin + rows - 1) / group + 1;
  tile::attend<D>(sm, kv.k_cache + head_base, kv.v_cache + head_base, kv.kv_width, 0, key_end,
                  scale);

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  for (int r = 16 * warp; r < 16 * warp + 16 && r < rows; ++r) {
    const long long token = first + (row_begin + r) / group;
    const int head = g * group + (row_begin + r) % group;
    const float inv = 1.0f / sm.l[r];  // every real row sees >= 1 key
    bf16* dst = out + token * out_stride + static_cast<long long>(head) * D;
    for (int d = lane; d < D; d += 32) {
      dst[d] = __float2bfloat16(sm.o[r * tile::Shared<D>::kLdo + d] * inv);
    }
  }
#else
  __trap();  // the host never launches it below sm_80 (tile_attention_supports)
#endif
}

template <int D>
void launch_tc(const bf16* q, long long q_stride, const KvView& kv, const int* plan,
               const AttentionPlanLayout& layout, int q_heads, int kv_heads, bf16* out,
               long long out_stride, cudaStream_t stream) {
  static const std::size_t shared = tile::set_shared_bytes<D>(prefill_tc_attention_kernel<D>);
  const dim3 grid(static_cast<unsigned>(layout.tile_items), static_cast<unsigned>(kv_heads));
  prefill_tc_attention_kernel<D><<<grid, tile::kThreads, shared, stream>>>(
      q, q_stride, kv, plan, layout.tile_offset(), q_heads / kv_heads,
      1.0f / sqrtf(static_cast<float>(D)), out, out_stride);
  SPARKSIM_LAUNCHED();
}

}  // namespace

void launch_prefill_tc_attention(const bf16* q, long long q_stride, const KvView& kv,
                                 const int* plan, const AttentionPlanLayout& layout, int q_heads,
                                 int kv_heads, int head_dim, bf16* out, long long out_stride,
                                 cudaStream_t stream) {
  switch (head_dim) {
    case 32:
      return launch_tc<32>(q, q_stride, kv, plan, layout, q_heads, kv_heads, out, out_stride,
                           stream);
    case 64:
      return launch_tc<64>(q, q_stride, kv, plan, layout, q_heads, kv_heads, out, out_stride,
                           stream);
    case 128:
      return launch_tc<128>(q, q_stride, kv, plan, layout, q_heads, kv_heads, out, out_stride,
                            stream);
    default:
      throw std::invalid_argument("tensor-core attention: head_dim must be 32, 64 or 128");
  }
}

}  // namespace sparksim::kernels::gpu::detail
