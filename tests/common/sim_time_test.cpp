// round_nonnegative against std::llround: halves, the doubles next to them, values just below 1
// (where x + 0.5 would round up), large magnitudes and random values across the step range.
#include "common/sim_time.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

namespace sparksim {
namespace {

TEST_CASE("round_nonnegative equals std::llround on non-negative values") {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> values = {0.0,
                                0.5,
                                std::nextafter(0.5, 0.0),
                                std::nextafter(0.5, 1.0),
                                0.49999999999999994,
                                std::nextafter(1.0, 0.0),
                                1.5,
                                2.5,
                                std::nextafter(2.5, 0.0),
                                std::nextafter(2.5, inf),
                                4503599627370495.5,  // 2^52 - 0.5: the last half a double holds
                                4503599627370496.0,
                                9007199254740993.0,
                                static_cast<double>(kMaxStepTime),
                                static_cast<double>(kMaxSimTime) * 8};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 200000; ++i) {
    // Log-uniform over [1e-3, 1e18] ns, then every tenth snapped to a half.
    double x = std::pow(10.0, -3.0 + 21.0 * unit(rng));
    if (i % 10 == 0) x = std::floor(x) + 0.5;
    values.push_back(x);
  }
  for (const double x : values) {
    INFO("x = " << x);
    CHECK(round_nonnegative(x) == std::llround(x));
  }
}

}  // namespace
}  // namespace sparksim
