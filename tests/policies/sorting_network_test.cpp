// The sorting network against std::sort, in each build the CPU runs (SSE always, AVX2 where
// present), at every size it takes (so every padding), on random values, ties, zeros and
// subnormals, and on inputs already sorted either way.
#include "policies/sorting_network.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

using namespace sparksim;

TEST_CASE("sorting network equals std::sort descending in every build and size") {
  std::vector<NetworkIsa> isas = {NetworkIsa::kSse, NetworkIsa::kBest};
  if (network_has_avx2()) {
    isas.push_back(NetworkIsa::kAvx2);
  } else {
    WARN("AVX2 sorting network: not run (this CPU or build has no AVX2)");
  }
  std::mt19937_64 rng(5);
  for (const NetworkIsa isa : isas) {
    for (std::size_t n = 0; n <= kNetworkSortMax; ++n) {
      for (int mix = 0; mix < 5; ++mix) {
        std::vector<float> values(n);
        for (std::size_t i = 0; i < n; ++i) {
          float& v = values[i];
          if (mix == 0) v = std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
          if (mix == 1) v = static_cast<float>(rng() % 5) / 4.0f;  // mostly ties
          if (mix == 2) {
            const float specials[] = {0.0f, 1.0f, std::numeric_limits<float>::denorm_min(),
                                      std::numeric_limits<float>::min(), 1e-30f};
            v = specials[rng() % 5];
          }
          if (mix >= 3) v = static_cast<float>(i) / 64.0f;
        }
        if (mix == 4) std::reverse(values.begin(), values.end());
        std::vector<float> expected = values;
        std::sort(expected.begin(), expected.end(), std::greater<float>());
        // Guards past the end: the sort must not write there.
        values.push_back(-1.0f);
        values.push_back(-2.0f);
        sort_few_descending(values.data(), n, isa);
        CHECK(values[n] == -1.0f);
        CHECK(values[n + 1] == -2.0f);
        values.resize(n);
        INFO("isa " << static_cast<int>(isa) << " n " << n << " mix " << mix);
        REQUIRE(values == expected);
      }
    }
  }
}
