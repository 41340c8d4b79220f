// The distinct-experts expectation against a Monte Carlo count: T tokens each pick top-k distinct
// experts uniformly (partial Fisher-Yates); rank 0 holds experts [0, E/EP). The closed form must
// lie within 4 standard errors (+1e-3) of the sample mean (false-failure rate about 6e-5 per
// check).
#include "profiles/moe/expert_routing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

namespace sparksim {
namespace {

struct Sample {
  double mean, standard_error;
};

Sample monte_carlo_distinct(int tokens, int top_k, int experts, int local, int trials,
                            std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> ids(static_cast<std::size_t>(experts));
  double sum = 0, sum_sq = 0;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<char> touched(static_cast<std::size_t>(local), 0);
    for (int t = 0; t < tokens; ++t) {
      std::iota(ids.begin(), ids.end(), 0);
      for (int j = 0; j < top_k; ++j) {
        std::uniform_int_distribution<int> pick(j, experts - 1);
        std::swap(ids[static_cast<std::size_t>(j)], ids[static_cast<std::size_t>(pick(rng))]);
        if (ids[static_cast<std::size_t>(j)] < local) touched[static_cast<std::size_t>(ids[j])] = 1;
      }
    }
    const double count = std::count(touched.begin(), touched.end(), 1);
    sum += count;
    sum_sq += count * count;
  }
  const double mean = sum / trials;
  const double variance = std::max(0.0, sum_sq / trials - mean * mean);
  return {mean, std::sqrt(variance / trials)};
}

TEST_CASE("expected distinct experts matches a Monte Carlo count of top-k routings") {
  struct Case {
    int tokens, top_k, experts, ep;
  };
  // V4-Flash (256 experts, top-6) and V4-Pro (384, top-6) at EP 8 and 32, from 1 token (one
  // expert hit at most per rank slot) through the saturating regime.
  const Case cases[] = {{1, 6, 256, 8},    {8, 6, 256, 8},   {64, 6, 256, 8},
                        {512, 6, 256, 32}, {16, 6, 384, 32}, {128, 6, 384, 16}};
  std::uint64_t seed = 7;
  for (const Case& c : cases) {
    const int local = c.experts / c.ep;
    const Sample s = monte_carlo_distinct(c.tokens, c.top_k, c.experts, local, 2000, seed++);
    const double expected = expected_distinct_experts(c.tokens, c.top_k, c.experts, local);
    INFO("T=" << c.tokens << " E=" << c.experts << " EP=" << c.ep << " closed form " << expected
              << " Monte Carlo " << s.mean << " ± " << s.standard_error);
    // A saturated count has no variance: 1e-3 absolute slack (the closed form is 8 − 4e-5).
    CHECK(std::abs(expected - s.mean) <= 4 * s.standard_error + 1e-3);
  }
}

TEST_CASE("distinct experts: edge cases and saturation") {
  CHECK(expected_distinct_experts(0, 6, 256, 32) == 0);
  // One token: each local expert is hit with probability k/E: 32 × 6 / 256 = 0.75.
  CHECK(expected_distinct_experts(1, 6, 256, 32) == Approx(0.75));
  CHECK(expected_distinct_experts(100000, 6, 256, 32) == Approx(32.0));
  CHECK(hottest_rank_hits(1024, 6, 8, 1.25) == Approx(960.0));  // 1.25 × 1024 × 6 / 8
}

}  // namespace
}  // namespace sparksim
