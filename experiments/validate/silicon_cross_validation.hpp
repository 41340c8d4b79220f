// The fitted terms of a real-silicon replay and their leave-one-group-out cross-validation.
// `fit_silicon_host_terms` fits the per-step host cost per engine preset (host_term_fit.hpp) to
// the cases whose split role is calibration, and never reads a check case's measurement;
// `replay_with_host_terms` replays cases with the fitted cost of their engine added to every
// step. `cross_validate_groups` holds out each split group (engine version x model) in turn:
// the terms are fitted to the calibration cases of the other groups only, and the held-out
// group's error is the error of that fit's prediction (a check group's fit is the full one,
// which never saw it either).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiments/validate/host_term_fit.hpp"
#include "experiments/validate/silicon_report.hpp"
#include "profiles/profile.hpp"

namespace sparksim {

// What the replays need besides the results: each row's loaded profile (by path) and the client's
// requests per user.
struct SiliconReplayContext {
  const std::map<std::string, Profile>* profiles = nullptr;
  std::int64_t requests_per_user = 10;
  double probe_us = 1000;  // the host cost of the second replay the linearisation uses
};

// One replay of `r` with `per_step_us` of host time on every step (the profile's own step terms
// otherwise unchanged).
SimulatedMetrics replay_silicon_case(const SiliconResult& r, const SiliconReplayContext& context,
                                     double per_step_us);

// The linearised fit cases of every replayable calibration case (index-aligned with `results`;
// empty entries for the others): two replays each.
std::vector<std::optional<HostFitCase>> silicon_host_fit_cases(
    const std::vector<SiliconResult>& results, const SiliconReplayContext& context);

// The fit over the fit cases whose result `use` accepts (all of them when `use` is empty).
HostTermFit fit_silicon_host_terms(const std::vector<SiliconResult>& results,
                                   const std::vector<std::optional<HostFitCase>>& fit_cases,
                                   const std::function<bool(const SiliconResult&)>& use = {});

// Replays every replayable result with its engine's fitted host cost, in place.
void replay_with_host_terms(std::vector<SiliconResult>& results, const HostTermFit& fit,
                            const SiliconReplayContext& context);

// One held-out group: its errors as predicted by the fit that never saw it.
struct HeldOutGroup {
  std::string group;  // the split key, "vllm 0.12.0 / qwen3-32b"
  std::string role;   // its split role
  std::string engine;
  HostTermEstimate host;  // the term its prediction used
  SiliconGroupError error;
};

struct CrossValidation {
  std::vector<HeldOutGroup> groups;      // in order of first appearance
  SiliconGroupError check, calibration;  // every held-out case of each role pooled
};

CrossValidation cross_validate_groups(const std::vector<SiliconResult>& results,
                                      const std::vector<std::optional<HostFitCase>>& fit_cases,
                                      const SiliconReplayContext& context);

// The fitted terms as report lines and as JSON.
std::string format_host_terms(const HostTermFit& fit);
nlohmann::ordered_json host_terms_json(const HostTermFit& fit);
std::string format_cross_validation(const CrossValidation& cv);
// One header line and one line per held-out group, then the two pooled rows.
std::string cross_validation_csv(const CrossValidation& cv);

}  // namespace sparksim
