// MoeStepModel: the verify-step time of one DeepSeek-V4 replica GPU, layer by layer: attention
// (terms in verify tokens B, requests R and query×context pairs, CSA's sparse selection saturated
// at its top-k), mHC, shared expert + router, routed experts over the expert-parallel group
// (distinct experts for the group's tokens, weight bytes by format, compute, hottest-rank
// imbalance), DeepEP dispatch and combine, optional two-batch overlap; then the LM head and
// sampling; and the drafters (MTP-1, DSpark-5). Every rank holds the same load (the step is
// paced by the slowest rank through the imbalance factor). docs/moe.md has the derivation.
#pragma once

#include <cstdint>
#include <string>

#include "profiles/drafter.hpp"
#include "profiles/moe/moe_gpu.hpp"
#include "profiles/moe/moe_target.hpp"
#include "profiles/moe/replica_topology.hpp"
#include "profiles/profile.hpp"
#include "profiles/profile_finishing.hpp"

namespace sparksim {

struct MoeStepOptions {
  double expert_imbalance = 1.1;        // ι: hottest rank's routed hits / mean (load balancing on)
  bool two_batch_overlap = false;       // two micro-batches: all-to-all hidden under compute
  std::int64_t planned_requests = 256;  // per attention rank: window reserve, DeepEP token cap
};

// Microseconds of one layer (or the whole step) split by component.
struct StepParts {
  double attention_us = 0;
  double mhc_us = 0;
  double shared_expert_us = 0;  // shared expert + router GEMMs
  double routed_experts_us = 0;
  double dispatch_us = 0;
  double combine_us = 0;
  double head_us = 0;   // LM head + sampling (step only)
  double fixed_us = 0;  // graph launch (step only)
  double total_us = 0;  // with the shared-expert and two-batch overlaps applied
};

class MoeStepModel {
 public:
  // Evaluates any topology, fitting in memory or not (make_moe_profile checks that).
  MoeStepModel(const MoeTarget& target, const MoeGpu& gpu, const ReplicaTopology& topology,
               const MoeStepOptions& options);

  // One verify step on one GPU: B verify tokens and R requests per attention rank (tp: the
  // replica's batch), `pairs` = Σ (1 + ℓ_r) × context_r. Components are summed over layers.
  StepParts step(std::int64_t tokens, std::int64_t requests, double pairs) const;
  // The parts of step() by dependence: B only (includes head and fixed), per request, per pair.
  double token_part_us(std::int64_t tokens) const;
  double per_request_us() const;
  double ns_per_pair() const;

  // One draft step for `requests` requests: MTP-1 (one MoE layer + head on R tokens) or
  // DSpark-γ (three MoE layers + head on R·γ positions, then γ Markov passes over R tokens).
  double draft_us(DrafterFamily family, std::int64_t requests, int gamma) const;

  const MoeTarget& target() const { return target_; }
  const ReplicaTopology& topology() const { return topology_; }
  const MoeStepOptions& options() const { return options_; }

 private:
  struct AttentionFit;  // per layer type: κ, per-token and per-pair coefficients
  StepParts layer(std::int64_t tokens, int kind) const;  // kind: 0 SWA, 1 CSA, 2 HCA
  double routed_us(double tokens_per_rank) const;
  double shared_us(double tokens) const;
  double mhc_us(double tokens) const;
  double head_us(double tokens) const;
  double tokens_per_rank(std::int64_t tokens) const;  // MoE/all-to-all tokens entering a rank

  MoeTarget target_;
  MoeGpu gpu_;
  ReplicaTopology topology_;
  MoeStepOptions options_;
  double kappa_us_[3] = {0, 0, 0};
  double per_token_us_[3] = {0, 0, 0};
  double ns_per_pair_[3] = {0, 0, 0};
  double mhc_pre_[2] = {0, 0};  // κ µs, µs per token
  double mhc_post_[2] = {0, 0};
};

// The engine-facing profile of `topology` (per GPU for dep, per replica for tp): verify and draft
// time tables from MoeStepModel, memory from gpu_memory(), provenance "analytic" with notes naming
// which terms were fitted to which measured tables. Throws InputError for a topology that does
// not fit.
Profile make_moe_profile(const MoeTarget& target, const MoeGpu& gpu,
                         const ReplicaTopology& topology, const MoeStepOptions& options,
                         const std::string& date, const std::string& git_sha);
// The same before finish_profile() (what the measured-db V4 generator starts from).
ProfileDraft make_moe_draft(const MoeTarget& target, const MoeGpu& gpu,
                            const ReplicaTopology& topology, const MoeStepOptions& options,
                            const std::string& date, const std::string& git_sha);

inline constexpr const char* kMoeTool = "sparksim profile-moe (v4 step model r1)";

}  // namespace sparksim
