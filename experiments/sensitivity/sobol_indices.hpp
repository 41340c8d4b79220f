// Variance-based (Sobol) sensitivity indices from a joint design: first-order S_i (the share of
// the output's variance explained by input i alone) and total S_Ti (including every interaction),
// estimated from two independent Latin-hypercube matrices A and B and the d matrices A_B^(i) (A
// with column i from B): N (d + 2) model evaluations. Estimators of Saltelli et al. 2010 (S_i)
// and Jansen 1999 (S_Ti); each with a standard error (the sample standard deviation of its
// per-row terms over sqrt(N), divided by the variance), so a reader and a test can judge them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace sparksim {

struct SobolIndex {
  double first_order = 0;
  double first_order_se = 0;
  double total = 0;
  double total_se = 0;
};

struct SobolResult {
  double mean = 0;
  double variance = 0;
  std::vector<SobolIndex> inputs;  // one per input
  std::size_t evaluations = 0;
};

// `model` maps a point of the unit cube (d coordinates in [0, 1)) to one output; the caller maps
// the unit cube onto the inputs' ranges. `n` rows per matrix; matrices A and B are Latin
// hypercubes seeded `seed` and `seed + 1`.
SobolResult sobol_indices(std::size_t d, std::size_t n, std::uint64_t seed,
                          const std::function<double(const std::vector<double>&)>& model);

}  // namespace sparksim
