// G-test with pooling and Williams' correction; deviations with Wilson intervals.
#include "sim/acceptance/token_level/goodness_of_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <boost/math/special_functions/gamma.hpp>

namespace sparksim {

double chi_square_upper_tail(double x, double df) {
  if (df <= 0) return 1.0;
  if (!(x > 0)) return 1.0;
  if (std::isinf(x)) return 0.0;
  return boost::math::gamma_q(df / 2.0, x / 2.0);
}

GTestResult conditional_g_test(std::span<const std::int64_t> counts,
                               std::span<const double> probabilities, int rows, int cols,
                               double min_expected) {
  const auto n_cells = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  if (counts.size() != n_cells || probabilities.size() != n_cells) {
    throw std::invalid_argument("g-test: counts and probabilities must be rows x cols");
  }
  GTestResult result;
  struct Cell {
    double expected;
    std::int64_t observed;
  };
  std::vector<Cell> cells;
  for (int r = 0; r < rows; ++r) {
    const std::int64_t* c = counts.data() + static_cast<std::size_t>(r) * cols;
    const double* p = probabilities.data() + static_cast<std::size_t>(r) * cols;
    std::int64_t n = 0;
    for (int j = 0; j < cols; ++j) n += c[j];
    result.observations += n;
    if (n == 0) continue;
    cells.clear();
    for (int j = 0; j < cols; ++j) {
      if (p[j] > 0) {
        cells.push_back({p[j] * static_cast<double>(n), c[j]});
      } else {
        result.impossible += c[j];
      }
    }
    // Pool the smallest cells (ascending expected count; ties keep column order) into one bin
    // until every bin expects at least min_expected.
    std::stable_sort(cells.begin(), cells.end(),
                     [](const Cell& a, const Cell& b) { return a.expected < b.expected; });
    std::size_t first = 0;
    Cell pooled{0, 0};
    while (first < cells.size() && (cells[first].expected < min_expected ||
                                    (pooled.expected > 0 && pooled.expected < min_expected))) {
      pooled.expected += cells[first].expected;
      pooled.observed += cells[first].observed;
      ++first;
    }
    std::vector<Cell> bins(cells.begin() + static_cast<std::ptrdiff_t>(first), cells.end());
    if (pooled.expected > 0) bins.push_back(pooled);
    if (bins.size() < 2) continue;
    double g = 0;
    for (const Cell& b : bins) {
      if (b.observed > 0) {
        const double o = static_cast<double>(b.observed);
        g += o * std::log(o / b.expected);
      }
    }
    g *= 2.0;
    const double k = static_cast<double>(bins.size());
    const double q = 1.0 + (k + 1.0) / (6.0 * static_cast<double>(n));
    result.statistic += std::max(0.0, g) / q;
    result.degrees_of_freedom += static_cast<std::int64_t>(bins.size()) - 1;
    ++result.rows_tested;
  }
  if (result.impossible > 0) {
    result.statistic = std::numeric_limits<double>::infinity();
    result.p_value = 0.0;
  } else {
    result.p_value =
        chi_square_upper_tail(result.statistic, static_cast<double>(result.degrees_of_freedom));
  }
  return result;
}

namespace {

CellDeviation cell(int r, int j, std::int64_t count, std::int64_t n, double target) {
  CellDeviation d;
  d.row = r;
  d.col = j;
  d.row_observations = n;
  d.target = target;
  const double nn = static_cast<double>(n);
  d.observed = static_cast<double>(count) / nn;
  d.deviation = d.observed - target;
  const double z = 1.959963984540054;  // two-sided 95%
  const double centre = (d.observed + z * z / (2 * nn)) / (1 + z * z / nn);
  const double half =
      z * std::sqrt(d.observed * (1 - d.observed) / nn + z * z / (4 * nn * nn)) / (1 + z * z / nn);
  d.ci_low = centre - half - target;
  d.ci_high = centre + half - target;
  const double sd = std::sqrt(target * (1 - target) / nn);
  d.z = sd > 0 ? d.deviation / sd
               : (d.deviation == 0
                      ? 0.0
                      : std::copysign(std::numeric_limits<double>::infinity(), d.deviation));
  return d;
}

}  // namespace

DeviationReport largest_deviations(std::span<const std::int64_t> counts,
                                   std::span<const double> probabilities, int rows, int cols,
                                   std::int64_t min_row_observations) {
  DeviationReport report;
  for (int r = 0; r < rows; ++r) {
    const std::int64_t* c = counts.data() + static_cast<std::size_t>(r) * cols;
    const double* p = probabilities.data() + static_cast<std::size_t>(r) * cols;
    std::int64_t n = 0;
    for (int j = 0; j < cols; ++j) n += c[j];
    if (n == 0) continue;
    for (int j = 0; j < cols; ++j) {
      if (p[j] == 0 && c[j] == 0) continue;
      const CellDeviation d = cell(r, j, c[j], n, p[j]);
      if (n >= min_row_observations &&
          (report.largest.row < 0 || std::abs(d.deviation) > std::abs(report.largest.deviation))) {
        report.largest = d;
      }
      if (report.most_significant.row < 0 || std::abs(d.z) > std::abs(report.most_significant.z)) {
        report.most_significant = d;
      }
    }
  }
  return report;
}

}  // namespace sparksim
