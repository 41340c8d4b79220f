// Latin-hypercube design on the unit cube: n samples in d dimensions, each dimension's n values
// one per stratum [i/n, (i+1)/n) in a random order, a uniform draw inside its stratum. Seeded
// Boost.Random (mt19937_64), so the same seed gives the same design on every platform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sparksim {

// samples[s][j] in [0, 1).
std::vector<std::vector<double>> latin_hypercube(std::size_t n, std::size_t d, std::uint64_t seed);

}  // namespace sparksim
