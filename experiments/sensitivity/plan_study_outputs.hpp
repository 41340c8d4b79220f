// The outputs a sensitivity study reads off one capacity plan (a `sparksim.plan/1` experiment):
// per policy and fleet (router × layout), the GPUs it needs (with topologies: the chosen
// topology's, the fewest), and per policy other than the baseline the GPU gain, the baseline's
// GPUs ÷ the policy's in the same fleet: above 1 the policy needs fewer GPUs, so the comparison
// flips where the gain crosses 1 (a tie is no win). A plan unmet within its search bound gives NaN
// ("unmet" in the files), never zero.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "experiments/plan/plan_config.hpp"
#include "experiments/sensitivity/sensitivity_inputs.hpp"

namespace sparksim {

enum class PlanOutputKind { kGpuGain, kGpusNeeded };

struct PlanStudyOutput {
  PlanOutputKind kind = PlanOutputKind::kGpusNeeded;
  std::size_t group = 0;           // policy-major, then router, then layout
  std::size_t baseline_group = 0;  // kGpuGain: the baseline policy in the same fleet
  std::string name;  // "GPUs needed, dspark-7+async-topk", "GPU gain dspark-7+async-topk vs ..."
  bool is_comparison() const { return kind == PlanOutputKind::kGpuGain; }
};

// Gains first (baseline's fleets in order, then the other policies), then GPUs needed per group.
// A policy's name is its entry as written; " [router, layout]" follows when several fleets are.
std::vector<PlanStudyOutput> plan_study_outputs(const PlanConfig& config);

// Groups of a plan: policies × routers × layouts (run_plan's order, each group one row per
// topology).
std::size_t plan_groups(const PlanOptions& options);

// The outputs' values for one searched plan: a group's GPUs are the fewest among its rows that
// meet the SLO (replicas × GPUs per replica); NaN when none does.
std::vector<double> plan_output_values(const PlanResult& result, std::size_t groups,
                                       const std::vector<PlanStudyOutput>& outputs);

// The plan at one setting of `inputs` (values as in applied_inputs), searched on `jobs` threads.
// `profile`: the plan's profile as loaded (needed for cost inputs; null with topologies).
std::vector<double> evaluate_plan_outputs(const PlanConfig& config,
                                          std::shared_ptr<const Profile> profile,
                                          const std::vector<SensitivityInput>& inputs,
                                          const std::vector<double>& values,
                                          const std::vector<PlanStudyOutput>& outputs, int jobs);

// Every problem with varying `input` in this plan, before any simulation (the checks of `plan
// --uncertain` with this input alone: acceptance inputs need the calibrated model, cost inputs
// exclude topologies, the plan prepared at the input's low and at its high value). Throws one
// InputError.
void check_plan_input(const PlanConfig& config, const SensitivityInput& input);

}  // namespace sparksim
