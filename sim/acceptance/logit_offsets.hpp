// Mean matching for heterogeneous acceptance: the per-position logit offsets a_k such that, when
// position k is accepted with probability σ(a_k + m) and m varies between requests and steps,
// the MEAN conditional acceptance (not the acceptance of the median request) equals a target
// curve. The mean is the one a measurement reports: pooled over steps, i.e. count(accepted >= k)
// / count(accepted >= k-1) over all request-steps of requests run at full block depth.
#pragma once

#include <span>
#include <vector>

namespace sparksim {

struct Heterogeneity {
  double request_sd = 0;  // σ_d: per-request difficulty (logit scale)
  double latent_sd = 0;   // σ_x: stationary sd of the per-step AR(1) latent state
  double latent_rho = 0;  // ρ: correlation of the latent state between consecutive steps
  // Pooling over steps weights a request by its step count; at a fixed output length that is
  // ∝ 1/τ̄(d), so hard requests weigh more. true: match the curve under that weighting (what a
  // measurement over requests of equal length reports); false: weight every (d, x) by its
  // density (a single step of a random request).
  bool step_weighted = true;
};

// Offsets a_1..a_γ for the target conditional curve `mean_curve` (probabilities in [0, 1]).
// Integrates over d and x on a grid out to ±6 sd (trapezoid rule; the error, below 1e-8, is the
// truncation of the Gaussian tails; see grid_step in the .cpp); safeguarded Newton to 1e-12; the
// step weighting is a fixed point iterated to convergence. A position whose predecessors are never
// all accepted gets its predecessor's offset (its conditional acceptance is undefined).
std::vector<double> solve_logit_offsets(std::span<const double> mean_curve,
                                        const Heterogeneity& heterogeneity);

// The mean conditional curve the offsets imply under `heterogeneity` (the inverse map, for tests
// and reports).
std::vector<double> implied_mean_curve(std::span<const double> offsets,
                                       const Heterogeneity& heterogeneity);

}  // namespace sparksim
