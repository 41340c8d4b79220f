// Least-squares fit of a DesignMatrix's named terms with Eigen (column-pivoting Householder QR on
// column-normalised features, so terms in ns per pair and in us per step are solved together
// without losing precision). Relative residuals by default: a step time's error matters as a
// share of the step, which is what the fidelity targets (MAPE) measure.
#pragma once

#include <string>
#include <vector>

#include "profiles/fit/design_matrix.hpp"

namespace sparksim {

enum class ResidualScale {
  kAbsolute,  // minimise Σ (predicted - observed)²
  kRelative,  // minimise Σ ((predicted - observed) / observed)²
};

struct FitOptions {
  ResidualScale scale = ResidualScale::kRelative;
  // Time coefficients cannot be negative: a term whose coefficient comes out < 0 is pinned to 0
  // and the rest refitted, the most negative first, until all are >= 0 (an active-set pass;
  // pinned terms are listed in LinearFit::pinned_to_zero).
  bool nonnegative = true;
};

struct LinearFit {
  std::vector<std::string> terms;
  std::vector<double> coefficients;  // same order as terms
  std::vector<std::string> pinned_to_zero;
  int rank = 0;  // numerical rank of the (active) design matrix

  // Throws std::out_of_range naming the terms for an unknown one.
  double coefficient(const std::string& term) const;
  // known + Σ coefficient_j · features_j
  double predict(const std::vector<double>& features, double known = 0) const;
};

// Throws std::invalid_argument for an empty matrix, fewer points than terms, or a non-finite
// feature.
LinearFit fit_least_squares(const DesignMatrix& data, const FitOptions& options = {});

// Per-point residuals predicted - observed, in the observation's unit.
std::vector<double> fit_residuals(const LinearFit& fit, const DesignMatrix& data);

}  // namespace sparksim
