// SensitivityConfig (schema `sparksim.sensitivity/1`): a bundled comparison (a `sparksim.sweep/1`
// config, as `pareto`/`slo` run it) plus its reductions for the study (fewer systems, loads,
// seeds or trace rows, so that each evaluation is short), the inputs with their ranges, whether to
// search break-even values, and an optional joint design. Every problem stops the command before
// any simulation as `config.json:line: what`. docs/sensitivity.md documents the keys.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "experiments/sensitivity/sensitivity_inputs.hpp"
#include "experiments/sweep/sweep_config.hpp"

namespace sparksim {

inline constexpr const char* kSensitivitySchema = "sparksim.sensitivity/1";

struct JointDesign {
  std::size_t samples = 0;  // rows per Latin-hypercube matrix (N); N (d + 2) evaluations
  std::uint64_t seed = 1;
};

struct SensitivityConfig {
  std::string path;
  std::string title, about;
  std::string experiment_path;
  SweepConfig experiment;                  // loaded and validated, the reductions applied
  std::shared_ptr<const Profile> profile;  // the experiment's profile, loaded once
  std::vector<SensitivityInput> inputs;
  bool break_even = false;
  std::optional<JointDesign> joint;  // numeric inputs only
};

// Loads, checks and applies everything; the experiment is loaded with load_sweep_config (its own
// checks), then "experiment_overrides" (systems by label, loads, seeds, max_requests, tiers).
SensitivityConfig load_sensitivity_config(const std::string& path);

}  // namespace sparksim
