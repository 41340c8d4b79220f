// PlanConfig (schema `sparksim.plan/1`): a `sparksim plan` command line as a file, so that a
// sensitivity study can name a capacity plan as its experiment. Each key is the plan option of the
// same name with dashes as underscores (`--max-replicas 8` is `"max_replicas": 8`; list options
// are arrays), read into the PlanOptions the CLI fills and checked by the plan's own check_plan,
// each problem placed at its key's line. Plus an optional `baseline`: the policy the others are
// compared with (default: the only MTP-1 entry). docs/sensitivity.md documents the keys.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "experiments/plan/capacity_plan.hpp"

namespace sparksim {

inline constexpr const char* kPlanSchema = "sparksim.plan/1";

struct PlanConfig {
  std::string path;
  std::string title, about;
  // What `sparksim plan` would run with these options; out_dir, jobs and uncertain are left to
  // the caller (a study sets them).
  PlanOptions options;
  std::optional<std::size_t> baseline;  // index into options.policies; nullopt: none to compare
  nlohmann::json document;              // the file as read, for a result's record
};

// Loads, reads every key and runs check_plan; every problem at once as `path:line: what` (a plan
// option's message names its key: "policies 'mtp1+fastest': ..."). Nothing is simulated.
PlanConfig load_plan_config(const std::string& path);

}  // namespace sparksim
