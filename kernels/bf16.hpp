// Host-side bfloat16 rounding. Weights are generated as floats already rounded to bf16, so the CPU
// reference and the GPU (which stores them as bf16) compute with exactly the same weights and the
// comparison measures only the kernels' arithmetic.
#pragma once

#include <cstdint>
#include <cstring>

namespace sparksim::kernels {

// Round to the nearest bf16 (ties to even), returned as a float; NaN stays NaN.
inline float round_to_bf16(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0) return x;
  const std::uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7FFFu + lsb;
  bits &= 0xFFFF0000u;
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// The upper 16 bits of a bf16-exact float: the device representation.
inline std::uint16_t bf16_bits(float bf16_exact) {
  std::uint32_t bits;
  std::memcpy(&bits, &bf16_exact, sizeof bits);
  return static_cast<std::uint16_t>(bits >> 16);
}

}  // namespace sparksim::kernels
