// The radix sort of survivals against std::sort, across the comparison-sort/radix boundary, with
// ties, zeros, ones and subnormals (all bit patterns of non-negative floats order as integers).
#include "policies/survival_sort.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

using namespace sparksim;

TEST_CASE("survival sort equals std::sort descending for every size and value mix") {
  std::mt19937_64 rng(17);
  std::vector<float> scratch;
  for (std::size_t n : {0, 1, 2, 255, 256, 257, 1000, 3584, 20000}) {
    for (int mix = 0; mix < 3; ++mix) {
      std::vector<float> values(n);
      for (auto& v : values) {
        if (mix == 0) v = std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
        if (mix == 1) v = static_cast<float>(rng() % 11) / 10.0f;  // many ties, zeros and ones
        if (mix == 2) {
          const float specials[] = {0.0f,
                                    1.0f,
                                    std::numeric_limits<float>::denorm_min(),
                                    std::numeric_limits<float>::min(),
                                    0.5f,
                                    1e-30f};
          v = specials[rng() % 6];
        }
      }
      std::vector<float> expected = values;
      std::sort(expected.begin(), expected.end(), std::greater<float>());
      sort_survivals_descending(values, scratch);
      INFO("n " << n << " mix " << mix);
      CHECK(values == expected);
    }
  }
}
