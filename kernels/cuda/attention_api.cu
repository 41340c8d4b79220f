// The upload-plan-launch-download wrapper of the planned attention (gpu_kernels.hpp
// planned_attention), for the comparisons in kernels/checks/; VerifyModel launches the same
// kernels on its own buffers.
#include <stdexcept>

#include "kernels/cuda/attention_paths.cuh"
#include "kernels/gpu_kernels.hpp"

namespace sparksim::kernels::gpu {

using detail::bf16;
using detail::DeviceBuffer;

bool planned_attention_supported(int head_dim) {
  return device_count() > 0 && detail::tile_attention_supports(head_dim);
}

std::vector<float> planned_attention(const std::vector<float>& q, const HostKvCache& cache,
                                     int layer, const RaggedBatch& batch, int q_heads,
                                     const AttentionPlanConfig& config, int sm_count,
                                     std::string* plan_summary) {
  const KvCacheShape& cs = cache.shape;
  const int kv_width = cs.kv_heads * cs.head_dim;
  batch.validate(cs, 1 << 30);
  if (layer < 0 || layer >= cs.layers) throw std::invalid_argument("attention: layer out of range");
  if (q_heads <= 0 || q_heads % cs.kv_heads != 0) {
    throw std::invalid_argument("attention: q_heads must divide by kv_heads");
  }
  const long long q_width = static_cast<long long>(q_heads) * cs.head_dim;
  if (q.size() != static_cast<std::size_t>(batch.total_tokens() * q_width)) {
    throw std::invalid_argument("attention: q must be tokens x q_heads x head_dim");
  }
  if (sm_count < 0) throw std::invalid_argument("attention: sm_count must be >= 0");
  if (!planned_attention_supported(cs.head_dim)) {
    throw std::runtime_error("planned attention: needs a device of cc >= 8.0, head_dim 32/64/128");
  }
  if (sm_count == 0) {
    int device = 0;
    SPARKSIM_CUDA(cudaGetDevice(&device));
    SPARKSIM_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  }
  const int group = q_heads / cs.kv_heads;
  const int tokens = batch.total_tokens();
  const AttentionPlanLayout layout =
      attention_plan_layout(tokens, group, cs.kv_heads, sm_count, config);
  const AttentionPlan plan =
      plan_attention(batch, tokens, group, cs.kv_heads, sm_count, layout, config);
  if (plan_summary != nullptr) *plan_summary = describe_attention_plan(plan);
  DeviceBuffer<int> dplan;
  dplan.upload(pack_attention_plan(plan, layout));
  DeviceBuffer<bf16> dq, ck, cv;
  detail::upload_bf16(dq, q);
  detail::upload_bf16(ck, cache.k);
  detail::upload_bf16(cv, cache.v);
  const auto partial_rows = static_cast<std::size_t>(layout.token_splits) * q_heads;
  DeviceBuffer<float> ws_o(partial_rows * cs.head_dim);
  DeviceBuffer<float> ws_lse(partial_rows);
  DeviceBuffer<bf16> out(q.size());
  const detail::KvView kv{ck.get(), cv.get(), cs.offset(layer, 0, 0),
                          static_cast<long long>(cs.max_tokens) * kv_width, kv_width};
  detail::launch_planned_attention(dq.get(), q_width, kv, dplan.get(), layout, tokens, q_heads,
                                   cs.kv_heads, cs.head_dim, {ws_o.get(), ws_lse.get()}, out.get(),
                                   q_width, nullptr);
  return detail::download_bf16(out.get(), q.size());
}

}  // namespace sparksim::kernels::gpu
