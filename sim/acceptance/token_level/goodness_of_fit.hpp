// Goodness of fit of committed tokens to the toy target: a G-test (likelihood-ratio chi-square)
// on counts of (condition, token) pairs against the target's conditional probabilities, e.g.
// (previous token → next token) transitions. Conditionally on the past, each committed token is
// one multinomial draw from its row, so the rows' statistics add up and G is asymptotically χ²
// with Σ (bins − 1) degrees of freedom (Billingsley 1961, for Markov chain data).
// Small cells make that approximation anti-conservative, so within each row the cells whose
// expected count is below `min_expected` are pooled into one bin, and Williams' correction
// divides each row's G by 1 + (bins + 1) / (6 n). A token observed where the target gives
// probability 0 is proof of distortion: p-value 0.
#pragma once

#include <cstdint>
#include <span>

namespace sparksim {

struct GTestResult {
  double statistic = 0;  // Σ over rows of G_row / q_row (Williams)
  std::int64_t degrees_of_freedom = 0;
  double p_value = 1;             // P(χ²_df >= statistic); 1 when df == 0
  std::int64_t observations = 0;  // Σ counts
  std::int64_t rows_tested = 0;   // rows with >= 2 bins after pooling
  std::int64_t impossible = 0;    // counts in cells of target probability 0
};

// counts and probabilities are rows × cols row-major; each row of probabilities sums to 1.
GTestResult conditional_g_test(std::span<const std::int64_t> counts,
                               std::span<const double> probabilities, int rows, int cols,
                               double min_expected = 5.0);

// One cell's observed frequency against the target's probability.
struct CellDeviation {
  int row = -1, col = -1;
  std::int64_t row_observations = 0;
  double target = 0, observed = 0;
  double deviation = 0;            // observed − target
  double ci_low = 0, ci_high = 0;  // 95% Wilson interval of `observed`, minus `target`
  double z = 0;                    // deviation / sqrt(target (1 − target) / n)
};

// The cell with the largest |observed − target| among rows with at least `min_row_observations`
// observations (row = -1 if none), and the cell with the largest |z| among all rows with data.
struct DeviationReport {
  CellDeviation largest;
  CellDeviation most_significant;
};
DeviationReport largest_deviations(std::span<const std::int64_t> counts,
                                   std::span<const double> probabilities, int rows, int cols,
                                   std::int64_t min_row_observations);

// Upper tail of the χ² distribution with `df` degrees of freedom at x (1 for df <= 0).
double chi_square_upper_tail(double x, double df);

}  // namespace sparksim
