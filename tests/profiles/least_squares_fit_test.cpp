// The generic least-squares fitter: recovers known coefficients from synthetic data with seeded
// noise, pins negative time coefficients to zero, honours the known (unfitted) part, and reports
// held-out error by region as hand-computed.
#include "profiles/fit/least_squares_fit.hpp"

#include <random>

#include <catch2/catch.hpp>

#include "profiles/fit/fit_error.hpp"

namespace sparksim {
namespace {

TEST_CASE("fitter recovers known coefficients from noisy synthetic points") {
  // t = 20 us + 0.8 ns/pair * pairs + 3 us/request * R, with 0.5% multiplicative noise.
  std::mt19937_64 rng(17);
  std::normal_distribution<double> noise(0.0, 0.005);
  DesignMatrix d({"fixed_us", "pair_us", "request_us"});
  for (int r = 1; r <= 256; r *= 2) {
    for (int ctx = 128; ctx <= 32768; ctx *= 2) {
      const double pairs = static_cast<double>(r) * ctx;
      const double t = 20 + 0.8e-3 * pairs + 3 * r;
      d.add({1.0, pairs, static_cast<double>(r)}, t * (1 + noise(rng)), r < 32 ? "small" : "large");
    }
  }
  const LinearFit fit = fit_least_squares(d);
  CHECK(fit.coefficient("fixed_us") == Approx(20).epsilon(0.03));
  CHECK(fit.coefficient("pair_us") == Approx(0.8e-3).epsilon(0.02));
  CHECK(fit.coefficient("request_us") == Approx(3).epsilon(0.03));
  CHECK(fit.pinned_to_zero.empty());
  CHECK(fit.rank == 3);
  const FitErrorReport e = error_report(fit, d);
  CHECK(e.overall.mean_abs_pct < 1.0);  // the noise is 0.5% (1 sigma): MAPE ~0.4%
  CHECK(e.overall.mean_abs_pct > 0.1);  // and the fit cannot explain the noise away
  CHECK_THROWS_AS(fit.coefficient("nope"), std::out_of_range);
}

TEST_CASE("fitter: absolute scale, known part, and negative coefficients pinned to zero") {
  DesignMatrix d({"a", "b"});
  // y = known + 2a - 0.5b: the free fit finds b's coefficient -0.5; a time model cannot.
  d.add({1, 1}, 10 + 2 * 1 - 0.5, "r", 10);
  d.add({2, 1}, 10 + 2 * 2 - 0.5, "r", 10);
  d.add({3, 0}, 10 + 2 * 3, "r", 10);
  d.add({4, 0}, 10 + 2 * 4, "r", 10);
  const LinearFit free_fit = fit_least_squares(d, {ResidualScale::kAbsolute, false});
  CHECK(free_fit.coefficient("b") == Approx(-0.5));
  const LinearFit fit = fit_least_squares(d, {ResidualScale::kAbsolute, true});
  CHECK(fit.coefficient("b") == 0);
  REQUIRE(fit.pinned_to_zero == std::vector<std::string>{"b"});
  // Refitted a alone, through the origin on y - known = {1.5, 3.5, 6, 8}: Σxy/Σx² = 58.5/30.
  CHECK(fit.coefficient("a") == Approx(58.5 / 30));
  CHECK_THROWS_AS(fit_least_squares(DesignMatrix({"a", "b"})), std::invalid_argument);
}

TEST_CASE("held-out split and error report by region (hand-computed)") {
  DesignMatrix d({"x"});
  for (int i = 1; i <= 6; ++i) d.add({static_cast<double>(i)}, 10.0 * i, i <= 3 ? "lo" : "hi");
  const auto [train, held] = d.split_held_out(3, 1);
  CHECK(train.size() == 4);
  REQUIRE(held.size() == 2);  // points 2 and 5
  CHECK(held.observed == std::vector<double>{20, 50});
  // Predictions 22 and 45: errors +10% and -10%.
  const FitErrorReport r = error_report(std::vector<double>{22, 45}, held);
  CHECK(r.overall.mean_abs_pct == Approx(10));
  REQUIRE(r.regions.size() == 2);
  CHECK(r.regions[0].region == "lo");
  CHECK(r.regions[0].worst_signed_pct == Approx(10));
  CHECK(r.regions[1].worst_signed_pct == Approx(-10));
}

}  // namespace
}  // namespace sparksim
