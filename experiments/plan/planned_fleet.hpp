// The fleet a topology plan chose, read back from its directory so `sparksim cluster --plan DIR`
// serves exactly that fleet: the topology's profile, its engines (a dep<N> replica is N attention
// ranks, each simulated as one engine), the prefill pool the plan sized, router, drafter, policy.
#pragma once

#include <cstdint>
#include <string>

#include "experiments/run/cluster_experiment.hpp"

namespace sparksim {

struct PlannedFleet {
  std::string topology;
  std::string drafter;
  std::string policy;
  std::string router;
  std::string layout;
  std::string profile_path;          // PLAN/profiles/<topology>.json for composed profiles
  std::int64_t replicas = 0;         // of the topology
  std::int64_t engines = 0;          // replicas × engines per replica
  std::int64_t prefill_engines = 0;  // of `engines`: the prefill pool (0 = colocated)
  std::int64_t gpus = 0;
};

// Reads PLAN/topology.csv (written by `sparksim plan --topologies/--topology-profile`) and returns
// the chosen fleet of `policy` ("DRAFTER+POLICY" as the plan printed it; "" = the only policy in
// the plan) with the fewest GPUs over the plan's routers and layouts (ties: the first row).
// Throws InputError(`PLAN/topology.csv[:line]: ...`) when the file is missing or malformed, names
// several policies and none was picked, or no topology met the SLO for the policy.
PlannedFleet read_planned_fleet(const std::string& plan_dir, const std::string& policy);

// Sets the cluster's profile, replicas, prefill pool, router, drafter and policy from `fleet`.
void apply_planned_fleet(const PlannedFleet& fleet, ClusterOptions& options);

}  // namespace sparksim
