// Means and 95% Student-t intervals across seeds, against hand-computed values.
#include "experiments/sweep/seed_statistics.hpp"

#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

using namespace sparksim;

TEST_CASE("t quantiles match the closed forms, the standard table and the normal quantile") {
  // Closed forms: df = 1 is Cauchy, t = tan(π (p - 1/2)); df = 2, t = (2p - 1) / sqrt(2p (1 - p)).
  CHECK(student_t_975(1) == Approx(std::tan(M_PI * 0.475)).epsilon(1e-12));
  CHECK(student_t_975(2) == Approx(0.95 / std::sqrt(2 * 0.975 * 0.025)).epsilon(1e-12));
  // NIST/SEMATECH e-Handbook 1.3.6.7.2 (3 decimals).
  CHECK(student_t_975(5) == Approx(2.571).margin(5e-4));
  CHECK(student_t_975(30) == Approx(2.042).margin(5e-4));
  CHECK(student_t_975(40) == Approx(2.021).margin(1e-3));
  CHECK(student_t_975(120) == Approx(1.980).margin(1e-3));
  CHECK(student_t_975(100000) == Approx(1.95996).margin(1e-4));
  CHECK_THROWS(student_t_975(0));
}

TEST_CASE("three seeds: mean, sample standard deviation and the t interval") {
  const std::vector<double> v = {1.0, 2.0, 3.0};
  const SeedStats s = seed_stats(v);
  CHECK(s.n == 3);
  CHECK(s.mean == Approx(2.0));
  CHECK(s.stddev == Approx(1.0));
  REQUIRE(s.has_ci);
  // half width = t(0.975, 2) * 1 / sqrt(3) = 4.3026527 / 1.7320508 = 2.4841377
  CHECK(s.ci95_lo == Approx(2.0 - 2.4841377).epsilon(1e-6));
  CHECK(s.ci95_hi == Approx(2.0 + 2.4841377).epsilon(1e-6));
}

TEST_CASE("one seed has no interval and identical seeds a zero-width one") {
  const std::vector<double> one = {5.0};
  const SeedStats a = seed_stats(one);
  CHECK(a.n == 1);
  CHECK(a.mean == 5.0);
  CHECK_FALSE(a.has_ci);
  const std::vector<double> same = {4.0, 4.0, 4.0, 4.0};
  const SeedStats b = seed_stats(same);
  CHECK(b.has_ci);
  CHECK(b.ci95_lo == 4.0);
  CHECK(b.ci95_hi == 4.0);
  CHECK(seed_stats(std::vector<double>{}).n == 0);
}
