// Statistics across seeds: the mean of a metric over independent replications (one simulation per
// seed) with a two-sided 95% Student-t confidence interval. Seeds are few (2-10), so the t
// quantile, not the normal one, sets the interval's width.
#pragma once

#include <cstdint>
#include <span>

namespace sparksim {

struct SeedStats {
  std::int64_t n = 0;
  double mean = 0;    // 0 when n == 0
  double stddev = 0;  // sample standard deviation (n - 1 in the denominator); 0 when n < 2
  // mean ∓ t(0.975, n-1) · stddev / √n; only when n >= 2 (one replication says nothing about its
  // spread), otherwise has_ci is false and both bounds equal the mean.
  bool has_ci = false;
  double ci95_lo = 0;
  double ci95_hi = 0;
};

// Sums in the given order (callers pass seeds in the config's order, so results are reproducible).
SeedStats seed_stats(std::span<const double> values);

// The 0.975 quantile of Student's t with `df` >= 1 degrees of freedom (Boost.Math).
double student_t_975(std::int64_t df);

}  // namespace sparksim
