// Saltelli/Jansen estimators of first-order and total Sobol indices.
#include "experiments/sensitivity/sobol_indices.hpp"

#include <cmath>

#include "experiments/sensitivity/latin_hypercube.hpp"

namespace sparksim {

namespace {

// Mean and standard error of the mean of `terms`.
std::pair<double, double> mean_and_se(const std::vector<double>& terms) {
  const double n = static_cast<double>(terms.size());
  double sum = 0;
  for (double t : terms) sum += t;
  const double mean = sum / n;
  double ss = 0;
  for (double t : terms) ss += (t - mean) * (t - mean);
  return {mean, std::sqrt(ss / (n - 1) / n)};
}

}  // namespace

SobolResult sobol_indices(std::size_t d, std::size_t n, std::uint64_t seed,
                          const std::function<double(const std::vector<double>&)>& model) {
  const auto a = latin_hypercube(n, d, seed);
  const auto b = latin_hypercube(n, d, seed + 1);
  std::vector<double> fa(n), fb(n);
  for (std::size_t r = 0; r < n; ++r) {
    fa[r] = model(a[r]);
    fb[r] = model(b[r]);
  }
  SobolResult out;
  std::vector<double> both(fa);
  both.insert(both.end(), fb.begin(), fb.end());
  out.mean = mean_and_se(both).first;
  for (double y : both) out.variance += (y - out.mean) * (y - out.mean);
  out.variance /= static_cast<double>(both.size() - 1);
  out.evaluations = 2 * n;
  for (std::size_t i = 0; i < d; ++i) {
    std::vector<double> first(n), total(n);
    for (std::size_t r = 0; r < n; ++r) {
      std::vector<double> x = a[r];
      x[i] = b[r][i];
      const double fab = model(x);
      first[r] = fb[r] * (fab - fa[r]);                // Saltelli 2010
      total[r] = 0.5 * (fa[r] - fab) * (fa[r] - fab);  // Jansen 1999
    }
    out.evaluations += n;
    const auto [s1, s1_se] = mean_and_se(first);
    const auto [st, st_se] = mean_and_se(total);
    const double v = out.variance > 0 ? out.variance : 1.0;
    out.inputs.push_back({s1 / v, s1_se / v, st / v, st_se / v});
  }
  return out;
}

}  // namespace sparksim
