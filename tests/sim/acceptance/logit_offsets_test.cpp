// Mean matching: the solved offsets reproduce the target curve as the mean over heterogeneity
// (deterministic quadrature, no sampling), and they differ from the naive logits, which would
// reproduce the curve only for the median request.
#include "sim/acceptance/logit_offsets.hpp"

#include <cmath>

#include <catch2/catch.hpp>

using namespace sparksim;

TEST_CASE("solved offsets reproduce the mean curve under every heterogeneity setting") {
  const std::vector<double> curve = {0.905, 0.890, 0.888, 0.885, 0.887, 0.891, 0.882};
  for (const Heterogeneity h :
       {Heterogeneity{0, 0, 0, true}, Heterogeneity{0.1, 0.9, 0.6, true},
        Heterogeneity{0.8, 0.3, 0.9, true}, Heterogeneity{0.5, 1.2, 0.5, false}}) {
    INFO("request_sd " << h.request_sd << " latent_sd " << h.latent_sd << " step-weighted "
                       << h.step_weighted);
    const auto offsets = solve_logit_offsets(curve, h);
    const auto implied = implied_mean_curve(offsets, h);
    for (std::size_t k = 0; k < curve.size(); ++k)
      CHECK(implied[k] == Approx(curve[k]).margin(1e-9));
  }
}

TEST_CASE("without heterogeneity the offsets are the logits and with it the first one is larger") {
  const std::vector<double> curve = {0.534, 0.589, 0.642, 0.678, 0.709, 0.729, 0.733};
  const auto plain = solve_logit_offsets(curve, Heterogeneity{});
  for (std::size_t k = 0; k < curve.size(); ++k) {
    CHECK(plain[k] == Approx(std::log(curve[k] / (1 - curve[k]))).margin(1e-9));
  }
  // Averaging σ over a spread pulls the mean toward 1/2, so matching a mean above 1/2 at the first
  // position needs a larger offset than its logit. (Later positions are conditional on the
  // earlier ones being accepted, which favours easy steps, so they need less.)
  const auto spread = solve_logit_offsets(curve, Heterogeneity{0.5, 0.9, 0.6, true});
  CHECK(spread[0] > plain[0] + 0.05);
  CHECK(spread.back() < plain.back());
}

TEST_CASE("step weighting matters when difficulty varies between requests") {
  // Hard requests take more steps, so pooled over steps the mean is lower than over requests:
  // matching the pooled mean needs larger offsets.
  const std::vector<double> curve = {0.8, 0.8, 0.8, 0.8, 0.8};
  const auto by_step = solve_logit_offsets(curve, Heterogeneity{1.0, 0.0, 0.0, true});
  const auto by_density = solve_logit_offsets(curve, Heterogeneity{1.0, 0.0, 0.0, false});
  CHECK(by_step[0] > by_density[0] + 0.01);
}

TEST_CASE("curves with 0 and 1 entries stay finite") {
  const std::vector<double> curve = {1.0, 0.5, 0.0, 0.7};
  const auto offsets = solve_logit_offsets(curve, Heterogeneity{0.2, 0.5, 0.5, true});
  for (double a : offsets) CHECK(std::isfinite(a));
  const auto implied = implied_mean_curve(offsets, Heterogeneity{0.2, 0.5, 0.5, true});
  CHECK(implied[0] == Approx(1.0).margin(1e-9));
  CHECK(implied[1] == Approx(0.5).margin(1e-9));
  CHECK(implied[2] == Approx(0.0).margin(1e-9));
}
