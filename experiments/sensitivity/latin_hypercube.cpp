// Latin-hypercube sampling (McKay, Beckman & Conover 1979).
#include "experiments/sensitivity/latin_hypercube.hpp"

#include <numeric>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>

namespace sparksim {

std::vector<std::vector<double>> latin_hypercube(std::size_t n, std::size_t d, std::uint64_t seed) {
  boost::random::mt19937_64 rng(seed);
  boost::random::uniform_01<double> unit;
  std::vector<std::vector<double>> samples(n, std::vector<double>(d));
  std::vector<std::size_t> strata(n);
  for (std::size_t j = 0; j < d; ++j) {
    std::iota(strata.begin(), strata.end(), std::size_t{0});
    // Fisher-Yates with Boost's distribution (std::shuffle's is implementation-defined).
    for (std::size_t i = n; i > 1; --i) {
      boost::random::uniform_int_distribution<std::size_t> pick(0, i - 1);
      std::swap(strata[i - 1], strata[pick(rng)]);
    }
    for (std::size_t s = 0; s < n; ++s) {
      samples[s][j] = (static_cast<double>(strata[s]) + unit(rng)) / static_cast<double>(n);
    }
  }
  return samples;
}

}  // namespace sparksim
