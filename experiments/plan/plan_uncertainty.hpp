// How sure is a capacity plan? The declared inputs a planner does not know well (acceptance on
// their traffic, the confidence head, draft/verify/host cost, the SPS belief: the same inputs as
// `sparksim sensitivity`, sensitivity_inputs.hpp) are given ranges; a seeded Latin hypercube
// samples them, the whole replica search runs at every sample, and the plan reports, per policy,
// the range of replicas/GPUs needed and, per fleet size, the share of samples in which it meets
// the SLO: the probability that it does when each input is uniform over its range.
#pragma once

#include <string>
#include <vector>

#include "experiments/plan/capacity_plan.hpp"

namespace sparksim {

// "NAME=LOW:HIGH" for a numeric input (acceptance_shift=-0.5:0.5), "NAME=A|B" for a categorical
// one (acceptance_scenario=v4-vllm-note|dspark-table1-qwen3). Throws InputError("--uncertain
// 'TEXT': ...") for an unknown name, a value outside the input's range or low >= high.
SensitivityInput parse_uncertain_input(const std::string& text);

// Every problem with the declared inputs, before any simulation: the sample count, acceptance
// inputs without the calibrated model, cost inputs with topologies (each topology composes its
// own profile), and every input at its low and at its high value prepared as the plan would run
// it. Throws one InputError listing them; does nothing without uncertain inputs.
void check_uncertain_inputs(const PlanOptions& options);

// The plan's options at one setting of the declared inputs (`values` as in applied_inputs:
// numeric values, categorical kAtLow/kAtHigh, NaN = nominal). `profile` is the plan's profile as
// loaded (needed only for cost inputs; may be null otherwise).
PlanOptions options_at(const PlanOptions& options, std::shared_ptr<const Profile> profile,
                       const std::vector<double>& values);

// The samples' input values: options.uncertainty_samples rows of a Latin hypercube seeded with
// options.uncertainty_seed, each numeric input low + u (high - low), each categorical one its low
// choice for u < 1/2 and its high choice otherwise.
std::vector<std::vector<double>> uncertainty_design(const PlanOptions& options);

// Searches the plan at every sample of uncertainty_design; replicas aligned with nominal.plans.
std::vector<UncertaintySample> sample_plan_uncertainty(const PlanOptions& options,
                                                       const PlanResult& nominal);

// DIR/uncertainty.csv: sample, each input's value, the plan's name, replicas and GPUs needed
// (empty: unmet within the search's bound).
std::string uncertainty_csv(const PlanOptions& options, const PlanResult& result);

// DIR/meet_probability.csv: per plan and per fleet size from the smallest to the largest needed
// in any sample, how many samples it meets the SLO in and that share (a fleet meets the SLO under
// a sample when it has at least the replicas the sample needs: the search's monotone premise).
std::string meet_probability_csv(const PlanResult& result);

// DeepSeek-V4 has no published DSpark acceptance (sim/acceptance/acceptance_scenarios.hpp). For a
// plan on a deepseek-v4-* target with a DSpark policy, one line for stdout naming the acceptance
// scenario the plan ran under and how to see the band over scenarios (every scenario is a whole
// extra search, so the band is asked for: `--uncertain acceptance_scenario=A|B
// --uncertainty-samples 2` searches once under each), or, when --uncertain already varies the
// scenario, saying that each plan's line gives the answer per scenario; "" otherwise.
std::string scenario_note(const PlanOptions& options, const PlanResult& result);

// When --uncertain varies acceptance_scenario: one line for stdout under a plan's answer with the
// replicas (and GPUs) needed under each scenario over the samples drawn with it, the default
// named, e.g. "  by scenario: v4-vllm-note (default) 3 replicas (24 GPUs); dspark-table1-qwen3 2
// (16 GPUs)"; "" otherwise.
std::string scenario_answer(const PlanOptions& options, const PlanResult& result, std::size_t plan);

// One line for stdout under a plan's answer, e.g. "  uncertain (16 samples): 2-4 replicas
// (2-4 GPUs), median 3; meets the SLO with 2: 25%, 3: 75%, 4: 100%".
std::string uncertainty_answer(const PlanResult& result, std::size_t plan);

}  // namespace sparksim
