// Capacity planning across replica topologies (DeepSeek-V4 MoE): which `dep<N>` / `tp<N>` layouts
// to compare, the profile each one runs on (composed from the MoE step model, or given per
// topology), the ones refused for memory, and the choice per policy: the fewest GPUs meeting the
// SLO, with the reason every other topology lost. capacity_plan.cpp searches replica counts.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profiles/profile.hpp"

namespace sparksim {

struct TopologyPlanOptions {
  // Composed: the analytic MoE step model's profile of each of `topologies` for target × GPU.
  std::string target;
  std::string gpu;
  std::vector<std::string> topologies;  // dep<N> / tp<N>
  std::string expert_format = "fp8";
  int gpus_per_node = 8;
  double expert_imbalance = 1.1;
  bool two_batch_overlap = false;
  std::int64_t planned_requests = 256;
  // Given: "dep8=PATH" (a one-GPU profile of an attention data-parallel rank) or "tp8=PATH" (a
  // profile of the whole tensor-parallel replica, `gpus` = 8): telemetry or measured-db profiles.
  std::vector<std::string> topology_profiles;
  std::int64_t max_gpus = 512;  // per topology: search replicas up to max_gpus / N
  std::string date;             // composed profiles' provenance
  std::string git_sha;

  bool active() const { return !topologies.empty() || !topology_profiles.empty(); }
};

// One topology the plan compares.
struct TopologyCandidate {
  std::string name;             // "dep8", "tp8"
  int gpus_per_replica = 1;     // N
  int engines_per_replica = 1;  // simulated engines per replica: N attention ranks (dep), 1 (tp)
  std::string profile_path;     // the given file, or "composed:<name>"
  std::shared_ptr<const Profile> profile;  // null when the topology does not fit in memory
  std::string infeasible_memory;           // why it does not fit (the numbers)
};

// Every topology of `options`, in the order given (composed first, then given profiles), or one
// InputError listing every problem: an unknown target, GPU or expert format, a name that is not
// dep<N>/tp<N> or breaks the target's divisibility rules, a duplicate, a profile file that does
// not load (the loader refuses one that leaves no KV cache) or whose `gpus` disagrees with its
// topology (dep: 1, tp<N>: N). A composed topology that does not fit in memory is a candidate
// with `infeasible_memory` set, not an error.
std::vector<TopologyCandidate> topology_candidates(const TopologyPlanOptions& options);

// How one topology fared for one policy and fleet (router × layout).
struct TopologyOutcome {
  std::string topology;
  int gpus_per_replica = 1;
  std::optional<std::int64_t> replicas;  // the fewest meeting the SLO; nullopt: none within max
  std::int64_t gpus = 0;                 // replicas × gpus_per_replica when met
  std::string infeasible_memory;         // set: never simulated
  std::string miss_reason;               // the largest count tried, when unmet
  std::int64_t max_replicas = 0;         // searched up to
};

struct TopologyVerdict {
  std::string topology;
  std::string status;  // chosen | more_gpus | slo_missed | infeasible_memory
  std::string why;     // one line, e.g. "32 GPUs > 24 (dep8)"
};

// The choice among `outcomes` (one policy and fleet): the fewest GPUs among those meeting the
// SLO; ties go to the topology listed first. Returns one verdict per outcome, same order; none is
// `chosen` when no topology meets the SLO.
std::vector<TopologyVerdict> choose_topology(const std::vector<TopologyOutcome>& outcomes);

}  // namespace sparksim
