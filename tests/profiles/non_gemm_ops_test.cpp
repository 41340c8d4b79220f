// The memory-bound operations outside GEMMs and attention (profiles/non_gemm_ops.hpp) against one
// decoder layer and one sampling pass worked by hand from the bytes each kernel moves.
#include "profiles/non_gemm_ops.hpp"

#include <catch2/catch.hpp>

namespace sparksim {
namespace {

// A small Qwen3-style layer: hidden 1024, 8 query heads and 2 KV heads of 128 (q 1024, kv 256),
// ffn 3072, q/k norms; 1e6 B/us (1 TB/s) and 2 us per kernel, 4 tokens, bf16 (2 B).
// Bytes of each kernel (weights once + per token x 4):
//   RMSNorm + add: 1024 x 2 + 4 x (4 x 1024 x 2)     = 2048 + 32768 = 34816
//   q norm:         128 x 2 + 4 x (2 x 1024 x 2)     =  256 + 16384 = 16640
//   k norm:         128 x 2 + 4 x (2 x 256 x 2)      =  256 +  4096 =  4352
//   RoPE:                     4 x (2 x 1280 x 2)     =                20480
//   KV append:                4 x (2 x 2 x 256 x 2)  =                 8192
//   RMSNorm + add (post-attention)                                 = 34816
//   SiLU*mul:                 4 x (3 x 3072 x 2)     =                73728
// Sum 193024 B -> 0.193024 us, plus 7 kernels x 2 us = 14.193024 us.
TEST_CASE("one decoder layer's memory-bound kernels equal the hand-worked bytes and launches") {
  const NonGemmLayerWidths widths{1024, 1024, 256, 128, 3072, true};
  const MemoryBoundRates rates{1e6, 2.0};
  const std::vector<MemoryBoundKernel> kernels = layer_non_gemm_kernels(widths);
  REQUIRE(kernels.size() == 7);
  double us = 0;
  double bytes = 0;
  for (const MemoryBoundKernel& k : kernels) {
    us += memory_bound_us(k, 4, rates);
    bytes += k.weight_bytes + 4 * k.bytes_per_token;
  }
  CHECK(bytes == 193024);
  CHECK(us == Approx(14.193024).epsilon(1e-12));
  // Without q/k norms (Llama): 5 kernels, 193024 - 16640 - 4352 = 172032 B.
  NonGemmLayerWidths llama = widths;
  llama.qk_norm = false;
  double llama_us = 0;
  for (const MemoryBoundKernel& k : layer_non_gemm_kernels(llama)) {
    llama_us += memory_bound_us(k, 4, rates);
  }
  CHECK(llama_us == Approx(10.172032).epsilon(1e-12));
}

// Logits processing + sampling of 3 rows over a 1000-entry vocabulary: the softmax reads bf16
// logits and writes fp32 probabilities (3 x 1000 x 6 = 18000 B), the sampler reads them
// (3 x 1000 x 4 = 12000 B): 30000 B -> 0.03 us, plus 2 kernels x 2 us = 4.03 us.
TEST_CASE("logits processing and sampling scale with rows x vocabulary") {
  const MemoryBoundRates rates{1e6, 2.0};
  const double us =
      memory_bound_us(logits_softmax(1000), 3, rates) + memory_bound_us(sampler(1000), 3, rates);
  CHECK(us == Approx(4.03).epsilon(1e-12));
}

}  // namespace
}  // namespace sparksim
