// What `sparksim plan` writes: plan.csv, search.csv, config.json and, with topologies,
// topology.csv and the composed profiles, all through one staged directory.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/plan/capacity_plan.hpp"
#include "experiments/run/run_experiment.hpp"

namespace sparksim {

// The resolved configuration of every run the plan simulated (one per prepared topology ×
// policy, in that order), each written by `sparksim run`'s own config.json writer, so a plan row
// can be reproduced by `sparksim run` from its entry.
nlohmann::ordered_json plan_run_configs(const std::vector<std::vector<RunSetup>>& setups);

// DIR/plan.csv: one row per plan (policy × fleet × topology) with the answer and its metrics.
std::string plan_csv(const PlanResult& result);

// DIR/search.csv: every replica count simulated, in increasing order per plan, with what missed.
std::string search_csv(const PlanResult& result);

// DIR/config.json: the plan's own inputs (SLO, fleets, search bounds, topologies, policies) and,
// under "runs", `run_configs` (plan_run_configs).
nlohmann::ordered_json plan_config_json(const PlanOptions& options, const PlanResult& result,
                                        nlohmann::ordered_json run_configs, std::int64_t requests);

// Writes every output of the plan into options.out_dir at once (nothing on failure).
void write_plan_outputs(const PlanOptions& options, const PlanResult& result,
                        nlohmann::ordered_json run_configs, std::int64_t requests);

}  // namespace sparksim
