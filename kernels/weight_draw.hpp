// The arithmetic of one seeded weight value, written once for the host generator
// (random_weights.cpp) and the device one (cuda/device_init.cu), so both run the same operations
// in the same order: splitmix64 bits, the top 53 as a double in [0, 1), then
// center + half_width * (2u - 1) with every operation rounded on its own (no fused multiply-add:
// device_init.cu is compiled with -fmad=false, and the host compiler does not contract across
// these explicit steps), rounded to float and then to bf16 by the caller. A CPU test checks it
// against common/random_bits.hpp's derive_seed / counter_uniform, the generator the host path
// used before.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SPARKSIM_HOST_DEVICE __host__ __device__
#else
#define SPARKSIM_HOST_DEVICE
#endif

namespace sparksim::kernels::weight_draw {

SPARKSIM_HOST_DEVICE inline constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// The key of tensor `tensor_id` under `seed` (common/random_bits.hpp derive_seed).
SPARKSIM_HOST_DEVICE inline constexpr std::uint64_t tensor_key(std::uint64_t seed,
                                                               std::uint64_t tensor_id) {
  return mix64(mix64(seed) ^ mix64(tensor_id + 0x632BE59BD9B4E019ULL));
}

// Value `index` of the tensor keyed `key`, uniform on [center - half_width, center + half_width),
// in double (the caller rounds to float, then bf16): a product and a sum, each rounded on its own.
SPARKSIM_HOST_DEVICE inline double value(std::uint64_t key, std::uint64_t index, double center,
                                         double half_width) {
  const double u = static_cast<double>(mix64(key ^ mix64(index)) >> 11) * 0x1.0p-53;
  const double spread = half_width * (2.0 * u - 1.0);  // 2u - 1 is exact
  return center + spread;
}

}  // namespace sparksim::kernels::weight_draw
