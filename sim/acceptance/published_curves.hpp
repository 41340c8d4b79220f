// The published acceptance figures (DSpark paper Table 1, Figures 2 and 4; DeepSeek-V3 MTP) and
// the mean per-position conditional-acceptance curves derived from them for every (target,
// drafter, domain, γ). The calibrated model reproduces these curves as the step-weighted mean over
// its heterogeneity; the derivation and each assumption are documented in the .cpp.
#pragma once

#include <array>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profiles/drafter.hpp"
#include "traces/domain.hpp"

namespace sparksim {

// The conditional acceptance P(position k accepted | 1..k-1 accepted), k = 1..γ, per domain.
struct MeanCurves {
  std::array<std::vector<double>, kDomainCount> p;
  std::vector<std::string> notes;  // assumptions a caller should report (e.g. a fallback target)
};

// Largest block size the calibrated curves cover: Figure 4's longest draft length is 16 = γ + 1.
inline constexpr int kMaxCalibratedGamma = 15;

// Targets with a Table 1 row ("qwen3-4b", "qwen3-8b", "qwen3-14b", "gemma4-12b").
std::span<const std::string_view> published_targets();

// Mean curves for `drafter` on `target`. Throws InputError for a γ outside 1..15 (or mtp1 with
// γ != 1). A target without a Table 1 row uses Qwen3-4B's curves and says so in `notes`.
// `scenario` names a declared acceptance prior (acceptance_scenarios.hpp) for a target without
// published acceptance (deepseek-v4-*); "" = that target's default. Throws InputError for an
// unknown scenario, or any scenario on a target with published curves.
MeanCurves published_mean_curves(const DrafterSpec& drafter, const std::string& target,
                                 const std::string& scenario = "");

// Steps 1-4 of the derivation (the .cpp) for a block drafter or EAGLE-3, with the γ = 7 domain τ
// given by `tau7_of` (a Table 1 row, or a scenario's prior). One curve per domain.
std::array<std::vector<double>, kDomainCount> table1_curves(
    const DrafterSpec& drafter, const std::function<double(DrafterFamily, Domain)>& tau7_of);

// Raw figures, for tests and reports. Families are eagle3, dflash, dspark (not mtp1).
// Table 1 accepted length (τ, bonus token included) averaged over the domain's three benchmarks.
double table1_domain_tau(std::string_view target, DrafterFamily family, Domain domain);
// Figure 2 (Qwen3-4B, γ = 7) conditional acceptance at positions 1..7.
std::array<double, 7> figure2_curve(DrafterFamily family, Domain domain);
// Figure 4 domain-mean τ at γ = 3, 7, 11, 15 (Qwen3-4B); dspark uses the Markov-head series.
// Eagle3 has no series (throws std::invalid_argument).
std::array<double, 4> figure4_tau(DrafterFamily family, Domain domain);
inline constexpr std::array<int, 4> kFigure4Gammas = {3, 7, 11, 15};
// MTP-1 second-token acceptance per domain (see the .cpp for the per-domain split).
double mtp1_acceptance(Domain domain);

// Moves every position of every domain by `logit_shift` on the logit scale (calibrated:shift=, the
// sensitivity studies' acceptance input: +0.5 makes every draft likelier to be accepted).
void shift_mean_curves(MeanCurves& curves, double logit_shift);

// τ = 1 + Σ_k Π_{i<=k} p_i of a conditional curve.
double tau_of_curve(std::span<const double> p);

}  // namespace sparksim
