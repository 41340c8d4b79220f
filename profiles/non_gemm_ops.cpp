// The memory-bound operations of non_gemm_ops.hpp: bytes per token of bf16 activations, plus
// fp32 probabilities in the sampler.
#include "profiles/non_gemm_ops.hpp"

namespace sparksim {

namespace {

constexpr double kBf16Bytes = 2;
constexpr double kFp32Bytes = 4;

}  // namespace

MemoryBoundKernel residual_rms_norm(double hidden) {
  return {"RMSNorm + residual add", hidden * kBf16Bytes, 4 * hidden * kBf16Bytes};
}
MemoryBoundKernel head_rms_norm(double width, double head_dim) {
  return {"per-head RMSNorm", head_dim * kBf16Bytes, 2 * width * kBf16Bytes};
}
MemoryBoundKernel rotary_embedding(double q_width, double kv_width) {
  return {"RoPE", 0, 2 * (q_width + kv_width) * kBf16Bytes};
}
MemoryBoundKernel kv_cache_append(double kv_width, double cache_element_bytes) {
  return {"KV-cache append", 0, 2 * kv_width * (kBf16Bytes + cache_element_bytes)};
}
MemoryBoundKernel silu_mul(double ffn) {
  return {"SiLU*mul", 0, 3 * ffn * kBf16Bytes};
}
MemoryBoundKernel embedding_gather(double hidden) {
  return {"embedding gather", 0, 2 * hidden * kBf16Bytes};
}
MemoryBoundKernel attention_activations(double q_width) {
  return {"attention q in / out", 0, 2 * q_width * kBf16Bytes};
}
MemoryBoundKernel logits_softmax(double vocab) {
  return {"logits softmax", 0, vocab * (kBf16Bytes + kFp32Bytes)};
}
MemoryBoundKernel sampler(double vocab) {
  return {"sampler", 0, vocab * kFp32Bytes};
}

std::vector<MemoryBoundKernel> layer_non_gemm_kernels(const NonGemmLayerWidths& w) {
  std::vector<MemoryBoundKernel> k{residual_rms_norm(w.hidden)};
  if (w.qk_norm) {
    k.push_back(head_rms_norm(w.q_width, w.head_dim));
    k.push_back(head_rms_norm(w.kv_width, w.head_dim));
  }
  k.push_back(rotary_embedding(w.q_width, w.kv_width));
  k.push_back(kv_cache_append(w.kv_width, w.kv_cache_element_bytes));
  k.push_back(residual_rms_norm(w.hidden));
  k.push_back(silu_mul(w.ffn));
  return k;
}

double memory_bound_us(const MemoryBoundKernel& k, double tokens, const MemoryBoundRates& r) {
  return (k.weight_bytes + k.bytes_per_token * tokens) / r.bytes_per_us + r.kernel_us;
}

}  // namespace sparksim
