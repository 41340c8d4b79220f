// count_above against the plain loop it replaces: every length up to 13 (partial last lanes),
// ties with the bound, NaN values and a NaN bound, and values past n that must not count.
#include "common/count_above.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

namespace sparksim {
namespace {

TEST_CASE("count_above equals the scalar count, past-the-end values ignored") {
  std::mt19937_64 rng(3);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = static_cast<int>(rng() % 14);
    std::vector<float> values(static_cast<std::size_t>(n) + 3);
    for (float& v : values) {
      v = rng() % 13 == 0 ? nan : static_cast<float>(rng() % 8) / 8.0f;  // ties are common
    }
    const float bound = trial % 97 == 0 ? nan : static_cast<float>(rng() % 8) / 8.0f;
    int expected = 0;
    for (int k = 0; k < n; ++k) expected += values[static_cast<std::size_t>(k)] > bound ? 1 : 0;
    INFO("trial " << trial << " n " << n);
    CHECK(count_above(values.data(), n, bound) == expected);
  }
  // Three huge values just past n: not counted.
  const std::vector<float> padded = {0.5f, 0.1f, 9.0f, 9.0f, 9.0f};
  CHECK(count_above(padded.data(), 2, 0.2f) == 1);
}

}  // namespace
}  // namespace sparksim
