// The random inputs of the kernel comparisons (kernel_checks.cpp, attention_checks.cpp): bf16-exact
// normal values, integers and uniforms from one seeded stream, a random KV cache, a ragged batch
// of given contexts and widths with random token ids.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "common/rng.hpp"
#include "kernels/bf16.hpp"
#include "kernels/ragged_batch.hpp"

namespace sparksim::kernels {

class CheckInputs {
 public:
  explicit CheckInputs(std::uint64_t seed) : rng_(seed) {}
  // n values ~ center + scale * N(0, 1), rounded to bf16.
  std::vector<float> normal(std::size_t n, double scale = 1.0, double center = 0.0) {
    boost::random::normal_distribution<double> d(center, scale);
    std::vector<float> out(n);
    for (float& v : out) v = round_to_bf16(static_cast<float>(d(rng_)));
    return out;
  }
  int integer(int lo, int hi) { return boost::random::uniform_int_distribution<int>(lo, hi)(rng_); }
  double uniform() { return uniform01_from_bits(rng_()); }

 private:
  std::mt19937_64 rng_;
};

inline std::vector<double> widen(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

inline HostKvCache random_cache(CheckInputs& in, const KvCacheShape& shape) {
  HostKvCache cache(shape);
  cache.k = in.normal(cache.k.size());
  cache.v = in.normal(cache.v.size());
  return cache;
}

inline RaggedBatch make_batch(const std::vector<int>& contexts, const std::vector<int>& lengths,
                              const std::vector<int>& slots, CheckInputs& in, int vocab) {
  RaggedBatch b;
  b.context_lens = contexts;
  b.slots = slots;
  b.cu_seqlens = {0};
  for (int len : lengths) {
    b.cu_seqlens.push_back(b.cu_seqlens.back() + len);
    for (int i = 0; i < len; ++i) b.tokens.push_back(in.integer(0, vocab - 1));
  }
  return b;
}

}  // namespace sparksim::kernels
