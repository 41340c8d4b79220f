// Speculative rejection sampling (Leviathan et al. 2023; Chen et al. 2023), exactly: a draft x
// drawn from p_d is accepted with probability min(1, p_t(x) / p_d(x)); at the first rejection one
// token is drawn from the normalised residual max(0, p_t − p_d); when every verified draft was
// accepted, a bonus token is drawn from p_t. The committed tokens are then distributed exactly as
// the target's, whatever p_d, provided the choice of how many drafts to verify never depends on
// drafts or uniforms at or after the position it concerns. Pure functions of explicit uniforms.
#pragma once

#include <span>

namespace sparksim {

// Σ_y min(p_d(y), p_t(y)) = 1 − ½‖p_d − p_t‖₁: the probability that a draft from p_d is accepted.
double acceptance_probability(std::span<const double> p_draft, std::span<const double> p_target);

// Accept the draft iff u < min(1, p_t(x) / p_d(x)), u uniform in [0, 1). p_draft > 0 for a token
// that was drawn from p_d; p_draft <= 0 (impossible under p_d) is rejected.
bool accept_draft(double p_target, double p_draft, double u);

// Inverse-CDF draw from `p` (need not be normalised: scaled by its sum) with u in [0, 1). Returns
// the last index with positive mass if rounding leaves u·sum past the cumulative total.
int sample_categorical(std::span<const double> p, double u);

// A draw from normalise(max(0, p_t − p_d)). If the residual has no mass (p_d ≥ p_t everywhere,
// when rejection has probability zero, so only rounding can get here), draws from p_t.
int sample_residual(std::span<const double> p_target, std::span<const double> p_draft, double u);

}  // namespace sparksim
