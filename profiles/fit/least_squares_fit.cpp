// The Eigen solve behind fit_least_squares and its non-negativity pass.
#include "profiles/fit/least_squares_fit.hpp"

#include <cmath>
#include <stdexcept>

#include <Eigen/Dense>

namespace sparksim {

namespace {

// Solves for the active columns only; inactive coefficients stay 0.
Eigen::VectorXd solve_active(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                             const std::vector<bool>& active, int& rank) {
  std::vector<Eigen::Index> columns;
  for (std::size_t j = 0; j < active.size(); ++j) {
    if (active[j]) columns.push_back(static_cast<Eigen::Index>(j));
  }
  Eigen::VectorXd x = Eigen::VectorXd::Zero(a.cols());
  if (columns.empty()) {
    rank = 0;
    return x;
  }
  Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(columns.size()));
  Eigen::VectorXd norms(sub.cols());
  for (Eigen::Index c = 0; c < sub.cols(); ++c) {
    sub.col(c) = a.col(columns[static_cast<std::size_t>(c)]);
    norms(c) = sub.col(c).norm();
    if (norms(c) > 0) sub.col(c) /= norms(c);
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(sub);
  rank = static_cast<int>(qr.rank());
  const Eigen::VectorXd y = qr.solve(b);
  for (Eigen::Index c = 0; c < sub.cols(); ++c) {
    x(columns[static_cast<std::size_t>(c)]) = norms(c) > 0 ? y(c) / norms(c) : 0.0;
  }
  return x;
}

}  // namespace

double LinearFit::coefficient(const std::string& term) const {
  for (std::size_t j = 0; j < terms.size(); ++j) {
    if (terms[j] == term) return coefficients[j];
  }
  std::string names;
  for (const std::string& t : terms) names += (names.empty() ? "" : ", ") + t;
  throw std::out_of_range("LinearFit: no term '" + term + "'; terms: " + names);
}

double LinearFit::predict(const std::vector<double>& features, double known) const {
  double t = known;
  for (std::size_t j = 0; j < coefficients.size(); ++j) t += coefficients[j] * features[j];
  return t;
}

LinearFit fit_least_squares(const DesignMatrix& data, const FitOptions& options) {
  const auto rows = static_cast<Eigen::Index>(data.size());
  const auto cols = static_cast<Eigen::Index>(data.terms.size());
  if (cols == 0 || rows < cols) {
    throw std::invalid_argument("fit_least_squares: " + std::to_string(rows) + " points for " +
                                std::to_string(cols) + " terms; need at least one per term");
  }
  Eigen::MatrixXd a(rows, cols);
  Eigen::VectorXd b(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto p = static_cast<std::size_t>(i);
    const double weight = options.scale == ResidualScale::kRelative ? 1.0 / data.observed[p] : 1.0;
    for (Eigen::Index j = 0; j < cols; ++j) {
      const double x = data.features[p][static_cast<std::size_t>(j)];
      if (!std::isfinite(x)) throw std::invalid_argument("fit_least_squares: non-finite feature");
      a(i, j) = weight * x;
    }
    b(i) = weight * (data.observed[p] - data.known[p]);
  }
  LinearFit fit;
  fit.terms = data.terms;
  std::vector<bool> active(static_cast<std::size_t>(cols), true);
  Eigen::VectorXd x = solve_active(a, b, active, fit.rank);
  while (options.nonnegative) {
    Eigen::Index worst = -1;
    for (Eigen::Index j = 0; j < cols; ++j) {
      if (active[static_cast<std::size_t>(j)] && x(j) < 0 && (worst < 0 || x(j) < x(worst))) {
        worst = j;
      }
    }
    if (worst < 0) break;
    active[static_cast<std::size_t>(worst)] = false;
    fit.pinned_to_zero.push_back(data.terms[static_cast<std::size_t>(worst)]);
    x = solve_active(a, b, active, fit.rank);
  }
  fit.coefficients.assign(x.data(), x.data() + x.size());
  return fit;
}

std::vector<double> fit_residuals(const LinearFit& fit, const DesignMatrix& data) {
  std::vector<double> r;
  for (std::size_t i = 0; i < data.size(); ++i) {
    r.push_back(fit.predict(data.features[i], data.known[i]) - data.observed[i]);
  }
  return r;
}

}  // namespace sparksim
