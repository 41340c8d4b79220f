// The sensitivity study's arithmetic against closed forms: a two-input model with known swings and
// a known break-even gives the exact tornado order and the break-even within the bisection's
// bracket; Sobol indices of the Ishigami function and of an additive one match their analytic
// values within the estimator's own standard error; the Latin hypercube stratifies.
#include "experiments/sensitivity/sensitivity_study.hpp"

#include <cmath>
#include <set>

#include <catch2/catch.hpp>

#include "experiments/sensitivity/latin_hypercube.hpp"
#include "experiments/sensitivity/sobol_indices.hpp"

namespace sparksim {
namespace {

std::vector<SensitivityInput> two_inputs() {
  SensitivityInput a, b;
  a.kind = find_input_kind("draft_cost_x");  // nominal 1
  a.low = 0.5;
  a.high = 2.0;
  b.kind = find_input_kind("verify_cost_x");  // nominal 1
  b.low = 0.8;
  b.high = 1.25;
  return {a, b};
}

// gain = 1.2 - 0.4 (x1 - 1) - 0.1 (x2 - 1): crosses 1 at x1 = 1.5 (x2 nominal); x2 never flips it.
// cost = x1 + 10 x2²: x2's swing (9.225) beats x1's (1.5).
std::vector<double> closed_form(const std::vector<double>& x) {
  return {1.2 - 0.4 * (x[0] - 1) - 0.1 * (x[1] - 1), x[0] + 10 * x[1] * x[1]};
}

TEST_CASE("a closed-form model gives the exact tornado order, swings and break-even") {
  const auto inputs = two_inputs();
  const std::vector<StudyOutput> outputs = {{"gain", true}, {"cost", false}};
  const StudyResult r = run_study(inputs, outputs, closed_form, true, std::nullopt);
  const auto& oat = r.one_at_a_time;
  CHECK(oat.at_nominal[0] == Approx(1.2));
  CHECK(oat.rows[0].at_low[0] == Approx(1.4));
  CHECK(oat.rows[0].at_high[0] == Approx(0.8));
  CHECK(oat.rows[1].at_high[1] - oat.rows[1].at_low[1] == Approx(10 * (1.5625 - 0.64)));
  CHECK(tornado_order(oat, 0) == std::vector<std::size_t>{0, 1});
  CHECK(tornado_order(oat, 1) == std::vector<std::size_t>{1, 0});
  // One break-even: gain vs draft_cost_x at 1.5, within 10 bisection steps of [0.5, 2].
  REQUIRE(r.break_even.size() == 1);
  const auto& b = r.break_even[0];
  CHECK(b.output == 0);
  CHECK(b.input == 0);
  CHECK(b.found.steps == kMaxBreakEvenSteps);
  CHECK(b.found.bracket_lo <= 1.5);
  CHECK(b.found.bracket_hi >= 1.5);
  CHECK(b.found.bracket_hi - b.found.bracket_lo == Approx(1.5 / 1024));
  CHECK(std::abs(b.found.value - 1.5) <= 1.5 / 2048);
  // Cached: nominal + 2 x 2 ends + 10 bisection points.
  CHECK(r.evaluations == 15);
}

TEST_CASE("no break-even is reported when the comparison holds across the range") {
  const auto margin = [](double x) { return 0.5 + x; };
  CHECK_FALSE(find_break_even(margin, 0.0, 1.0).has_value());
}

TEST_CASE("Latin hypercube: one sample per stratum per dimension, reproducible by seed") {
  const auto s = latin_hypercube(50, 3, 7);
  for (std::size_t j = 0; j < 3; ++j) {
    std::set<int> strata;
    for (const auto& row : s) strata.insert(static_cast<int>(std::floor(row[j] * 50)));
    CHECK(strata.size() == 50);
  }
  CHECK(latin_hypercube(50, 3, 7) == s);
  CHECK(latin_hypercube(50, 3, 8) != s);
}

// Ishigami (a = 7, b = 0.1) on [-π, π]³: analytic indices (Sobol' & Levitan 1999).
TEST_CASE("Sobol indices of the Ishigami function within their standard errors") {
  const double pi = std::acos(-1.0);
  const auto ishigami = [&](const std::vector<double>& u) {
    const double x1 = -pi + 2 * pi * u[0], x2 = -pi + 2 * pi * u[1], x3 = -pi + 2 * pi * u[2];
    return std::sin(x1) + 7 * std::sin(x2) * std::sin(x2) + 0.1 * std::pow(x3, 4) * std::sin(x1);
  };
  const double v = 0.5 + 49.0 / 8 + 0.1 * std::pow(pi, 4) / 5 + 0.01 * std::pow(pi, 8) / 18;
  const double v1 = 0.5 * std::pow(1 + 0.1 * std::pow(pi, 4) / 5, 2);
  const double v2 = 49.0 / 8;
  const double v13 = 0.01 * std::pow(pi, 8) * (1.0 / 18 - 1.0 / 50);
  const double first[] = {v1 / v, v2 / v, 0.0};
  const double total[] = {(v1 + v13) / v, v2 / v, v13 / v};
  const SobolResult r = sobol_indices(3, 8192, 11, ishigami);
  CHECK(r.evaluations == 8192 * 5);
  for (int i = 0; i < 3; ++i) {
    const auto& x = r.inputs[static_cast<std::size_t>(i)];
    INFO("input " << i << ": S " << x.first_order << " ± " << x.first_order_se << ", ST " << x.total
                  << " ± " << x.total_se);
    CHECK(x.first_order_se < 0.03);
    CHECK(std::abs(x.first_order - first[i]) < 4 * x.first_order_se);
    CHECK(std::abs(x.total - total[i]) < 4 * x.total_se + 1e-12);
  }
}

TEST_CASE("Sobol indices of an additive function: shares of variance 1 : 4") {
  const SobolResult r =
      sobol_indices(2, 4096, 3, [](const std::vector<double>& u) { return u[0] + 2 * u[1]; });
  CHECK(r.variance == Approx(5.0 / 12).epsilon(0.03));
  for (int i = 0; i < 2; ++i) {
    const auto& x = r.inputs[static_cast<std::size_t>(i)];
    const double expected = i == 0 ? 0.2 : 0.8;
    CHECK(std::abs(x.first_order - expected) < 4 * x.first_order_se);
    CHECK(std::abs(x.total - expected) < 4 * x.total_se);
  }
}

}  // namespace
}  // namespace sparksim
