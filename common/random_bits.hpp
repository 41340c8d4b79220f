// The stateless half of common/rng.hpp: a 64-bit mixer, stream seeds, and the documented
// transform of an engine's bits into a uniform double. Standard library only, so the kernels-only
// build (a bare GPU machine, no Boost) can use it; rng.hpp adds the distributions.
#pragma once

#include <cstdint>

namespace sparksim {

// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer with full avalanche.
inline constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Seed of the independent stream `stream_id` under the run's `seed`.
inline constexpr std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream_id) {
  return mix64(mix64(seed) ^ mix64(stream_id + 0x632BE59BD9B4E019ULL));
}

// Uniform in [0, 1): the top 53 of 64 random bits, scaled by 2^-53 (every value a multiple of
// 2^-53, each equally likely).
inline constexpr double uniform01_from_bits(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// Uniform in [0, 1) with 53 random bits, a pure function of (key, counter).
inline double counter_uniform(std::uint64_t key, std::uint64_t counter) {
  return uniform01_from_bits(mix64(key ^ mix64(counter)));
}

}  // namespace sparksim
