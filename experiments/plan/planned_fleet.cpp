// Reading a topology plan's chosen fleet back for `sparksim cluster --plan`.
#include "experiments/plan/planned_fleet.hpp"

#include <filesystem>
#include <optional>
#include <set>

#include "common/csv_table.hpp"
#include "common/input_error.hpp"

namespace sparksim {

PlannedFleet read_planned_fleet(const std::string& plan_dir, const std::string& policy) {
  const std::string path = (std::filesystem::path(plan_dir) / "topology.csv").string();
  if (!std::filesystem::exists(path)) {
    throw InputError(path +
                     ": not found; --plan needs the directory of `sparksim plan "
                     "--topologies ...` (or --topology-profile)");
  }
  const CsvTable t = CsvTable::load(path);
  const std::size_t drafter = t.column("drafter"), policy_column = t.column("policy"),
                    status = t.column("status"), topology = t.column("topology");
  std::set<std::string> policies;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    policies.insert(t.cell(r, drafter) + "+" + t.cell(r, policy_column));
  }
  std::string all;
  for (const auto& p : policies) all += (all.empty() ? "" : ", ") + p;
  if (policy.empty() && policies.size() != 1) {
    throw InputError(path + ": plans " + std::to_string(policies.size()) +
                     " policies; pick one with --plan-policy (" + all + ")");
  }
  const std::string wanted = policy.empty() ? *policies.begin() : policy;
  if (policies.count(wanted) == 0) {
    throw InputError("--plan-policy: " + path + " has no policy '" + wanted + "'; it has " + all);
  }
  std::optional<std::size_t> best;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (t.cell(r, drafter) + "+" + t.cell(r, policy_column) != wanted) continue;
    if (t.cell(r, status) != "chosen") continue;
    if (!best || t.integer(r, t.column("gpus")) < t.integer(*best, t.column("gpus"))) best = r;
  }
  if (!best) {
    throw InputError(path + ": no topology met the SLO for " + wanted +
                     " (no row has status 'chosen'): nothing to serve");
  }
  const std::size_t r = *best;
  PlannedFleet f;
  f.topology = t.cell(r, topology);
  f.drafter = t.cell(r, drafter);
  f.policy = t.cell(r, policy_column);
  f.router = t.cell(r, t.column("router"));
  f.layout = t.cell(r, t.column("layout"));
  f.replicas = t.integer_in(r, t.column("replicas"), 1, 1'000'000);
  f.engines = t.integer_in(r, t.column("engines"), 1, 1'000'000);
  f.prefill_engines = t.integer_in(r, t.column("prefill_engines"), 0, f.engines - 1);
  f.gpus = t.integer_in(r, t.column("gpus"), 1, 100'000'000);
  const std::string profile = t.cell(r, t.column("profile"));
  if (profile.rfind("composed:", 0) == 0) {
    f.profile_path =
        (std::filesystem::path(plan_dir) / "profiles" / (f.topology + ".json")).string();
  } else {
    f.profile_path = profile;
  }
  return f;
}

void apply_planned_fleet(const PlannedFleet& fleet, ClusterOptions& options) {
  options.run.profile_path = fleet.profile_path;
  options.run.drafter = fleet.drafter;
  options.run.policy = fleet.policy;
  options.router = fleet.router;
  options.replicas = fleet.engines;
  options.prefill_replicas = fleet.prefill_engines;
}

}  // namespace sparksim
