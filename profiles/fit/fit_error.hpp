// Error of a fitted model on a set of points (usually held out of the fit), overall and by the
// points' regions: mean absolute percentage error, the worst point and its shape.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "profiles/fit/design_matrix.hpp"
#include "profiles/fit/least_squares_fit.hpp"

namespace sparksim {

struct RegionError {
  std::string region;  // "all" for the overall row
  std::size_t points = 0;
  double mean_abs_pct = 0;   // MAPE, percent
  double worst_abs_pct = 0;  // percent
  std::string worst_label;   // the worst point's label
  double worst_signed_pct = 0;
};

struct FitErrorReport {
  RegionError overall;
  std::vector<RegionError> regions;  // in order of first appearance
};

// Percentage errors of `predicted` against data.observed; the labels/regions come from data.
FitErrorReport error_report(const std::vector<double>& predicted, const DesignMatrix& data);
FitErrorReport error_report(const LinearFit& fit, const DesignMatrix& data);

}  // namespace sparksim
