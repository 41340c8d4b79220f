// The survival sorts against std::sort: every size the sorting network takes (each padding), then
// across the network/comparison-sort and comparison-sort/radix boundaries, with ties, zeros, ones
// and subnormals (all bit patterns of non-negative floats order as integers).
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
  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= kNetworkSortMax + 1; ++n) sizes.push_back(n);
  for (std::size_t n : {255, 256, 257, 1000, 2047, 2048, 2049, 3584, 20000}) sizes.push_back(n);
  for (const std::size_t n : sizes) {
    for (int mix = 0; mix < 4; ++mix) {
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
      if (mix == 3) {  // already sorted, one way round or the other
        for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(i) / 64.0f;
        if (rng() % 2 == 0) std::reverse(values.begin(), values.end());
      }
      std::vector<float> expected = values;
      std::sort(expected.begin(), expected.end(), std::greater<float>());
      sort_survivals_descending(values, scratch);
      INFO("n " << n << " mix " << mix);
      CHECK(values == expected);
    }
  }
}
