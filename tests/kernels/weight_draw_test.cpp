// The weight draw shared by the host generator and device_init.cu, against common/rng.hpp (the
// generator's specification: derive_seed, counter_uniform) and against an FMA-contracted variant,
// which must differ somewhere: the test would catch a draw that fused the product and the sum.
#include "kernels/weight_draw.hpp"

#include <cmath>
#include <cstring>

#include <catch2/catch.hpp>

#include "common/rng.hpp"
#include "kernels/random_weights.hpp"

namespace sparksim::kernels {
namespace {

std::uint64_t bits_of(double x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

TEST_CASE("weight_draw::value is bit-equal to rng.hpp's counter_uniform transform") {
  for (std::uint64_t seed : {1ULL, 42ULL, 0xDEADBEEFULL}) {
    for (std::uint64_t id : {1000ULL, 1001ULL, 500007ULL}) {
      CHECK(weight_draw::tensor_key(seed, id) == derive_seed(seed, id));
      for (std::uint64_t i = 0; i < 2000; i += 7) {
        const double u = counter_uniform(derive_seed(seed, id), i);
        const double half = 0.02 * std::sqrt(3.0);
        const volatile double spread = half * (2.0 * u - 1.0);  // rounded on its own
        const double want = 0.0 + spread;
        REQUIRE(bits_of(weight_draw::value(derive_seed(seed, id), i, 0.0, half)) == bits_of(want));
        const volatile double gain_spread = 0.1 * (2.0 * u - 1.0);
        const double gain = 1.0 + gain_spread;
        REQUIRE(bits_of(weight_draw::value(derive_seed(seed, id), i, 1.0, 0.1)) == bits_of(gain));
      }
    }
  }
}

TEST_CASE("a fused multiply-add would change some drawn values: the rounding matters") {
  // center 1, half-width 0.1 (a norm gain): fma(0.1, 2u - 1, 1) rounds once, the draw twice.
  int differ = 0;
  const std::uint64_t key = weight_draw::tensor_key(7, 1001);
  for (std::uint64_t i = 0; i < 4000; ++i) {
    const double u = counter_uniform(key, i);
    if (bits_of(std::fma(0.1, 2.0 * u - 1.0, 1.0)) !=
        bits_of(weight_draw::value(key, i, 1.0, 0.1))) {
      ++differ;
    }
  }
  CHECK(differ > 0);
}

TEST_CASE("random_weight is the draw rounded to float and then to bf16") {
  const std::uint64_t key = weight_draw::tensor_key(3, 1002);
  for (std::uint64_t i = 0; i < 100; ++i) {
    const float f = static_cast<float>(weight_draw::value(key, i, 0.0, 0.5));
    std::uint32_t b = 0;
    std::memcpy(&b, &f, sizeof b);
    b = (b + 0x7FFFu + ((b >> 16) & 1u)) & 0xFFFF0000u;  // round to nearest even, 16 bits kept
    float want = 0;
    std::memcpy(&want, &b, sizeof want);
    CHECK(random_weight(3, 1002, i, 0.0, 0.5) == want);
  }
}

}  // namespace
}  // namespace sparksim::kernels
