// Mean and Student-t confidence interval across seeds.
#include "experiments/sweep/seed_statistics.hpp"

#include <cmath>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

namespace sparksim {

double student_t_975(std::int64_t df) {
  if (df < 1) throw std::invalid_argument("student_t_975: df must be >= 1");
  return boost::math::quantile(boost::math::students_t(static_cast<double>(df)), 0.975);
}

SeedStats seed_stats(std::span<const double> values) {
  SeedStats s;
  s.n = static_cast<std::int64_t>(values.size());
  if (s.n == 0) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  s.ci95_lo = s.ci95_hi = s.mean;
  if (s.n < 2) return s;
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(squares / static_cast<double>(s.n - 1));
  const double half = student_t_975(s.n - 1) * s.stddev / std::sqrt(static_cast<double>(s.n));
  s.has_ci = true;
  s.ci95_lo = s.mean - half;
  s.ci95_hi = s.mean + half;
  return s;
}

}  // namespace sparksim
