// What the kernels reference tests share: the tiny Qwen3 target and DSpark drafter (weights at
// matrix std 0.1, sharper than the realistic 0.02 on a 64-wide model, drawn once per seed),
// noisy caches, and one-request batches.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "kernels/ragged_batch.hpp"
#include "kernels/random_weights.hpp"

namespace sparksim::kernels::test {

inline const TargetWeights& tiny_target(std::uint64_t seed) {
  static std::map<std::uint64_t, TargetWeights> drawn;
  auto it = drawn.find(seed);
  if (it == drawn.end()) {
    it = drawn.emplace(seed, make_random_target_weights(tiny_qwen3_shape(), seed, 0.1)).first;
  }
  return it->second;
}

inline const DraftWeights& tiny_drafter(std::uint64_t seed) {
  static std::map<std::uint64_t, DraftWeights> drawn;
  auto it = drawn.find(seed);
  if (it == drawn.end()) {
    it = drawn
             .emplace(seed,
                      make_random_draft_weights(tiny_qwen3_shape(), tiny_dspark_shape(), seed, 0.1))
             .first;
  }
  return it->second;
}

// A cache filled with N(0, 3) noise, so that reading a wrong slot or position changes results.
inline HostKvCache noisy_cache(const KvCacheShape& shape, std::uint64_t seed) {
  HostKvCache c(shape);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, 3.0f);
  for (float& v : c.k) v = d(rng);
  for (float& v : c.v) v = d(rng);
  return c;
}

// One request of `tokens` after `context` cached positions in `slot`.
inline RaggedBatch single_request(const std::vector<int>& tokens, int context, int slot) {
  return {tokens, {0, static_cast<int>(tokens.size())}, {context}, {slot}};
}

}  // namespace sparksim::kernels::test
