// The per-token operations of a dense decoder that are neither GEMMs nor attention: the fused
// RMSNorm + residual add, Qwen3's per-head q/k RMSNorms, RoPE, the KV-cache append, SiLU·mul,
// the embedding gather, and the logits processing + sampling behind the LM head. Each is
// memory-bound, so it is described by the bytes it moves (one formula per operation, here only)
// and timed as bytes / (efficiency x measured copy bandwidth) + one kernel's fixed cost. The
// analytic roofline (analytic_profile.cpp) builds its kernel list from these, and the measured-db
// StepComposer adds them to the database's GEMM and attention rows, which never time them.
#pragma once

#include <string>
#include <vector>

namespace sparksim {

// One memory-bound kernel: bytes read once per launch (norm weights), bytes per token moved.
struct MemoryBoundKernel {
  std::string name;
  double weight_bytes = 0;
  double bytes_per_token = 0;
};

// Widths one GPU's decoder layer works on (its tensor-parallel shard: q_width = its query heads
// x head_dim, kv_width its KV heads', ffn its share; hidden is whole on every GPU).
struct NonGemmLayerWidths {
  double hidden = 0;
  double q_width = 0;
  double kv_width = 0;
  double head_dim = 0;
  double ffn = 0;
  bool qk_norm = false;
  double kv_cache_element_bytes = 2;  // bytes per cached K or V element (bf16 2, fp8 1)
};

// RMSNorm fused with the residual add: reads x and the residual, writes both (4 h values).
MemoryBoundKernel residual_rms_norm(double hidden);
// Per-head RMSNorm over `width` values (q or k) with a head_dim weight vector.
MemoryBoundKernel head_rms_norm(double width, double head_dim);
MemoryBoundKernel rotary_embedding(double q_width, double kv_width);  // in-place on q and k
// New K and V (bf16 activations) read and written into the cache's pages at its element size.
MemoryBoundKernel kv_cache_append(double kv_width, double cache_element_bytes = 2);
MemoryBoundKernel silu_mul(double ffn);             // SiLU(gate) * up
MemoryBoundKernel embedding_gather(double hidden);  // one row per token
// The attention kernel's own activation traffic (q in, output out): the analytic roofline
// charges it; the database's attention rows already include it, so the composer does not.
MemoryBoundKernel attention_activations(double q_width);
// Logits processing: the LM head's bf16 logits read, fp32 probabilities written (softmax).
MemoryBoundKernel logits_softmax(double vocab);
// The sample/accept pass reading those probabilities.
MemoryBoundKernel sampler(double vocab);

// One decoder layer's memory-bound kernels outside GEMMs and attention, in execution order:
// input RMSNorm + add, [q norm, k norm,] RoPE, KV append, post-attention RMSNorm + add, SiLU·mul
// (7 kernels with q/k norms, 5 without).
std::vector<MemoryBoundKernel> layer_non_gemm_kernels(const NonGemmLayerWidths& w);

// Rates a memory-bound kernel runs at on one GPU: bytes per microsecond and the fixed cost of
// one kernel (launch gap, ramp-up and tail; the roofline's kernel_overhead_us).
struct MemoryBoundRates {
  double bytes_per_us = 0;
  double kernel_us = 0;
};

// One launch over `tokens` tokens, in microseconds.
double memory_bound_us(const MemoryBoundKernel& k, double tokens, const MemoryBoundRates& r);

}  // namespace sparksim
