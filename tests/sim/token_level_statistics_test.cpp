// The token-level mode's statistical pieces: rejection sampling is exact (checked by quadrature
// over the uniforms, no sampling noise), and the G-test has the stated size (false-alarm rate)
// and reports impossible tokens, pooling and deviations correctly.
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/acceptance/token_level/goodness_of_fit.hpp"
#include "sim/acceptance/token_level/rejection_sampler.hpp"

using namespace sparksim;

namespace {

// P(committed token = y) for one verified draft: the draft from p_d, accepted with min(1, pt/pd),
// else one residual draw. Computed on a midpoint grid of N values for each of the three uniforms
// (draft, accept, residual), so the error is O(1/N) and deterministic.
std::vector<double> committed_distribution(const std::vector<double>& pd,
                                           const std::vector<double>& pt, int n) {
  std::vector<double> out(pt.size(), 0.0);
  const double w = 1.0 / n;
  for (int i = 0; i < n; ++i) {
    const int x = sample_categorical(pd, (i + 0.5) * w);
    int accepted = 0;
    for (int j = 0; j < n; ++j) accepted += accept_draft(pt[x], pd[x], (j + 0.5) * w);
    out[x] += w * accepted * w;
    const double rejected = w * (n - accepted) * w;
    if (rejected == 0) continue;
    for (int k = 0; k < n; ++k) out[sample_residual(pt, pd, (k + 0.5) * w)] += rejected * w;
  }
  return out;
}

}  // namespace

TEST_CASE("one verified draft is committed with exactly the target's distribution") {
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
      {{0.5, 0.5, 0.0}, {0.7, 0.3, 0.0}},            // Appendix A's first position
      {{0.1, 0.2, 0.3, 0.4}, {0.4, 0.3, 0.2, 0.1}},  // reversed
      {{0.0, 0.0, 0.8, 0.2}, {0.6, 0.4, 0.0, 0.0}},  // disjoint supports: always the residual
      {{0.25, 0.25, 0.25, 0.25}, {1.0, 0.0, 0.0, 0.0}},
      {{0.3, 0.3, 0.4}, {0.3, 0.3, 0.4}},  // identical: always accepted
  };
  for (const auto& [pd, pt] : cases) {
    const auto got = committed_distribution(pd, pt, 2000);
    for (std::size_t y = 0; y < pt.size(); ++y) {
      INFO("token " << y);
      CHECK(got[y] == Approx(pt[y]).margin(2e-3));  // grid error <= (1/2000) per uniform
    }
    const double alpha = acceptance_probability(pd, pt);
    double expected = 0;
    for (std::size_t y = 0; y < pt.size(); ++y) expected += std::min(pd[y], pt[y]);
    CHECK(alpha == Approx(expected));
  }
}

TEST_CASE("categorical and residual draws respect their supports") {
  const std::vector<double> p = {0.0, 0.25, 0.0, 0.75};
  CHECK(sample_categorical(p, 0.0) == 1);
  CHECK(sample_categorical(p, 0.2499) == 1);
  CHECK(sample_categorical(p, 0.25) == 3);
  CHECK(sample_categorical(p, 0.999999) == 3);
  const std::vector<double> pd = {0.5, 0.25, 0.0, 0.25};
  for (double u : {0.0, 0.3, 0.9999}) CHECK(sample_residual(p, pd, u) == 3);  // only 3 has excess
  CHECK(sample_residual(pd, pd, 0.7) == sample_categorical(pd, 0.7));  // no residual: p_t itself
  CHECK_FALSE(accept_draft(0.5, 0.0, 0.1));  // a token p_d cannot produce is never accepted
  CHECK(accept_draft(0.5, 0.4, 0.999));
  CHECK(accept_draft(0.2, 0.4, 0.49));
  CHECK_FALSE(accept_draft(0.2, 0.4, 0.5));
}

TEST_CASE("chi-square tail matches known quantiles") {
  CHECK(chi_square_upper_tail(3.841458820694124, 1) == Approx(0.05).epsilon(1e-9));
  CHECK(chi_square_upper_tail(23.209251158954356, 10) == Approx(0.01).epsilon(1e-9));
  CHECK(chi_square_upper_tail(0, 5) == 1.0);
  CHECK(chi_square_upper_tail(5, 0) == 1.0);
}

TEST_CASE("G-test has the stated size on data drawn from the target") {
  // 3 rows x 4 columns, some small probabilities (pooling kicks in). 4000 replications: the
  // rejection rate at α = 0.01 has a standard error of 0.0016.
  const std::vector<double> p = {0.6,  0.3,  0.08, 0.02, 0.25, 0.25,
                                 0.25, 0.25, 0.9,  0.05, 0.04, 0.01};
  std::mt19937_64 rng(7);
  int rejected_01 = 0, rejected_05 = 0;
  const int replications = 4000;
  for (int rep = 0; rep < replications; ++rep) {
    std::vector<std::int64_t> counts(12, 0);
    for (int row = 0; row < 3; ++row) {
      std::discrete_distribution<int> d(p.begin() + row * 4, p.begin() + row * 4 + 4);
      for (int i = 0; i < 150; ++i) ++counts[row * 4 + d(rng)];
    }
    const GTestResult g = conditional_g_test(counts, p, 3, 4);
    rejected_01 += g.p_value < 0.01;
    rejected_05 += g.p_value < 0.05;
  }
  INFO("rejection rates: " << rejected_01 / double(replications) << " at 0.01, "
                           << rejected_05 / double(replications) << " at 0.05");
  CHECK(rejected_01 / double(replications) < 0.016);
  CHECK(rejected_05 / double(replications) < 0.065);
  CHECK(rejected_05 / double(replications) > 0.035);
}

TEST_CASE("G-test flags impossible tokens, pools small cells, finds the largest deviation") {
  const std::vector<double> p = {0.5, 0.5, 0.0, 0.7, 0.2, 0.1};
  // Perfect fit: G = 0, p = 1.
  const std::vector<std::int64_t> exact = {500, 500, 0, 700, 200, 100};
  GTestResult g = conditional_g_test(exact, p, 2, 3);
  CHECK(g.statistic == Approx(0).margin(1e-9));
  CHECK(g.p_value == Approx(1.0));
  CHECK(g.degrees_of_freedom == 1 + 2);
  CHECK(g.observations == 2000);
  // One token where the target has probability 0: distortion, whatever the rest.
  const std::vector<std::int64_t> impossible = {500, 499, 1, 700, 200, 100};
  g = conditional_g_test(impossible, p, 2, 3);
  CHECK(g.impossible == 1);
  CHECK(g.p_value == 0.0);
  // Row 2 with 20 observations: expected 14, 4, 2 → the 4 and 2 are pooled into one bin of 6.
  const std::vector<std::int64_t> small = {0, 0, 0, 14, 4, 2};
  g = conditional_g_test(small, p, 2, 3);
  CHECK(g.degrees_of_freedom == 1);
  CHECK(g.rows_tested == 1);
  // Hand-computed deviation: row 0 observed 600/1000 for token 0 against 0.5.
  const std::vector<std::int64_t> skewed = {600, 400, 0, 700, 200, 100};
  const DeviationReport d = largest_deviations(skewed, p, 2, 3, 100);
  CHECK(d.largest.row == 0);
  CHECK(d.largest.deviation == Approx(0.1));
  CHECK(d.largest.z == Approx(0.1 / std::sqrt(0.25 / 1000)));
  // Wilson 95%: centre (0.6 + 1.92/1000) / 1.00384, half-width 0.0303.
  CHECK(d.largest.ci_low == Approx(0.0695).margin(0.001));
  CHECK(d.largest.ci_high == Approx(0.1301).margin(0.001));
  CHECK(d.most_significant.row == 0);
}
