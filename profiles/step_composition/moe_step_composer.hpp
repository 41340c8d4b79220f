// MoeStepComposer: a DeepSeek-V4 replica GPU's verify step (and draft step) composed from the
// measured rows of V4KernelTables, term by term: per layer the CSA or HCA attention module at
// (verify tokens, cached length), mHC pre + post, the shared expert and router GEMMs beside the
// routed path (DeepEP dispatch + the fused routed-expert op at the EP group's tokens + combine),
// optional two-batch overlap; then the LM head. Attention data-parallel (dep<N>) topologies
// only: every rank holds the same load. What no table measures is recorded in outside_grid
// (profiles/step_composition/README.md lists the rules).
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "profiles/drafter.hpp"
#include "profiles/kernel_db/v4_kernel_tables.hpp"
#include "profiles/moe/moe_gpu.hpp"
#include "profiles/moe/moe_target.hpp"
#include "profiles/moe/replica_topology.hpp"

namespace sparksim {

// Milliseconds of one layer, or of a whole step summed over layers.
struct ComposedMoeStep {
  double attention_ms = 0, mhc_ms = 0, shared_ms = 0, routed_ms = 0, dispatch_ms = 0,
         combine_ms = 0, head_ms = 0;
  double total_ms = 0;  // shared expert beside the routed path, two-batch overlap applied
  std::set<std::string> outside_grid;
};

class MoeStepComposer {
 public:
  // Throws InputError for a tensor-parallel topology or FP4 experts (no such rows measured).
  MoeStepComposer(const V4KernelTables& tables, const MoeTarget& target, const MoeGpu& gpu,
                  const ReplicaTopology& topology, bool two_batch_overlap);

  // One layer of kind 0 (SWA: priced by the HCA row), 1 (CSA), 2 (HCA), `tokens` verify tokens
  // on this rank (one query each) at `cached` cached tokens.
  ComposedMoeStep layer(std::int64_t tokens, int kind, std::int64_t cached) const;
  // The verify step: every layer plus the LM head on `tokens` rows.
  ComposedMoeStep step(std::int64_t tokens, std::int64_t cached) const;
  // One draft step (MTP-1, eagle3 = γ MTP layers, DFlash/DSpark-γ: three layers over R·γ
  // positions, DSpark adding γ Markov rank→vocab GEMMs); drafter layers attend a 128-token window.
  ComposedMoeStep draft(DrafterFamily family, std::int64_t requests, int gamma) const;

  static constexpr std::int64_t kDrafterWindow = 128;

 private:
  ComposedMoeStep layer_once(std::int64_t tokens, int kind, std::int64_t cached) const;
  KernelLatency head(std::int64_t rows) const;

  const V4KernelTables& tables_;
  MoeTarget target_;
  MoeGpu gpu_;
  ReplicaTopology topology_;
  bool two_batch_overlap_;
};

}  // namespace sparksim
