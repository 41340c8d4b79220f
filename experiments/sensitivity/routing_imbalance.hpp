// Expert-routing imbalance as a sensitivity input on a DeepSeek-V4 (MoE) profile: "what if the
// hottest expert-parallel rank carries 1.5x the mean load instead of 1.1x?". The V4 step model
// (profiles/moe/moe_step_model.hpp) charges the routed experts for the hits of the hottest rank,
// imbalance x tokens x top-k / ranks, so imbalance moves only the routed-expert part of a verify
// step (its FLOPs and activation bytes; the expert weights streamed do not depend on it) and,
// through the max with the shared expert, only where that path is the longer one. The change is
// added to the profile's verify table as the step model's own difference, so a profile fitted
// to telemetry keeps its fitted terms and gains only the modelled effect of the imbalance.
#pragma once

#include "profiles/moe/replica_topology.hpp"
#include "profiles/profile.hpp"

namespace sparksim {

// The imbalance every V4 profile is composed (and the telemetry fits' drafters scaled) at:
// MoeStepOptions' default, load balancing on.
double nominal_routing_imbalance();

// The replica a V4 profile was composed or fitted for, read from the provenance note sparksim
// writes into every V4 profile ("Replica dep8 (8 GPUs, EP 8, 8 GPUs per node, fp8 experts)"),
// and whether two-batch overlap was on. Throws InputError("routing_imbalance: ...") for a dense
// target or a V4 profile without that note.
struct ProfileReplica {
  ReplicaTopology topology;
  bool two_batch_overlap = false;
};
ProfileReplica profile_replica(const Profile& profile);

// Moves `profile`'s verify step from the nominal imbalance to `imbalance` (>= 1, max / mean rank
// load): every dense-table entry at B tokens gains the step model's token_part_us(B) at
// `imbalance` minus that at the nominal, and the SPS beliefs (capture, reference) follow, a step
// at T tokens taking that much longer. Per-request and per-pair terms, the drafters (one MoE
// layer for MTP-1, three for DSpark, left at nominal) and the host overhead stay. Throws as
// profile_replica does.
void apply_routing_imbalance(Profile& profile, double imbalance);

}  // namespace sparksim
