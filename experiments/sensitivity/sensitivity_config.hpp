// SensitivityConfig (schema `sparksim.sensitivity/1`): the experiment, either a bundled
// comparison (a `sparksim.sweep/1` config, as `pareto`/`slo` run it) with its reductions for the
// study (fewer systems, loads, seeds or trace rows, so that each evaluation is short), a
// capacity plan (a `sparksim.plan/1` config, as `sparksim plan` runs it) or a DeepSeek-V4
// topology comparison (a `sparksim.v4-topologies/1` config, on the rows the study keeps), told
// apart by the experiment file's schema; the inputs with their ranges, whether to search break-even
// values, and an optional joint design. Every problem stops the command before any simulation as
// `config.json:line: what`. docs/sensitivity.md documents the keys.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "experiments/plan/plan_config.hpp"
#include "experiments/sensitivity/sensitivity_inputs.hpp"
#include "experiments/sensitivity/topology_study.hpp"
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
  std::optional<PlanConfig> plan;  // set: the experiment is a capacity plan (no `experiment`)
  // Set: a v4-topologies comparison on some of its rows (`experiment` is its comparison).
  std::optional<TopologyStudy> topology;
  SweepConfig experiment;  // a comparison: loaded and validated, the reductions applied
  // The experiment's profile, loaded once (null for a plan over topologies: each composes its own).
  std::shared_ptr<const Profile> profile;
  std::string experiment_title, profile_label;  // for the report and the charts
  std::vector<SensitivityInput> inputs;
  bool break_even = false;
  std::optional<JointDesign> joint;  // numeric inputs only
};

// Loads, checks and applies everything; a comparison is loaded with load_sweep_config (its own
// checks), then "experiment_overrides" (systems by label, loads, seeds, max_requests, tiers); a
// plan with load_plan_config (no overrides: the plan file is the study's size); a topology
// comparison with load_topology_study ("rows" to keep, and the comparison's reductions).
SensitivityConfig load_sensitivity_config(const std::string& path);

}  // namespace sparksim
