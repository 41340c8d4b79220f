// Mean and Student-t confidence interval across seeds.
#include "experiments/sweep/seed_statistics.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

namespace sparksim {

double student_t_975(std::int64_t df) {
  // t(0.975, df) for df = 1..30 (standard tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
  static constexpr std::array<double, 30> kTable = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) throw std::invalid_argument("student_t_975: df must be >= 1");
  if (df <= 30) return kTable[static_cast<std::size_t>(df - 1)];
  const double z = 1.959963984540054;
  const double v = static_cast<double>(df);
  const double z3 = z * z * z, z5 = z3 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v);
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
