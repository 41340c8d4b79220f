// ReplicaTopology: how one DeepSeek-V4 replica spans GPUs, named on the command line and in sweep
// configs as `dep<N>` (attention data-parallel over N GPUs, each GPU its own requests, KV and
// verify batch; experts expert-parallel over the same N) or `tp<N>` (attention tensor-parallel
// over N GPUs sharing one batch; experts expert-parallel over N). Also: memory per GPU and the
// feasibility check that refuses a topology whose weights leave no KV cache, with the numbers.
#pragma once

#include <cstdint>
#include <string>

#include "profiles/moe/moe_gpu.hpp"
#include "profiles/moe/moe_target.hpp"

namespace sparksim {

enum class AttentionParallel { kData, kTensor };

struct ReplicaTopology {
  std::string name;  // canonical: "dep8", "tp8"
  AttentionParallel attention = AttentionParallel::kData;
  int gpus = 1;             // GPUs in the replica
  int expert_parallel = 1;  // EP group size (= gpus here)
  int gpus_per_node = 8;    // the all-to-all crosses nodes when expert_parallel exceeds it
  ExpertFormat expert_format = ExpertFormat::kFp8;

  bool crosses_nodes() const { return expert_parallel > gpus_per_node; }
  // GPUs whose requests, KV and verify batch are separate (attention data-parallel ranks).
  int attention_ranks() const { return attention == AttentionParallel::kData ? gpus : 1; }
};

// Parses `dep<N>` / `tp<N>` for `target`: N in 1..1024, N divides the target's routed experts
// (expert parallelism), and for tp N divides the query heads. Throws InputError naming `what`
// (e.g. "--topology") and the rule broken.
ReplicaTopology parse_topology(const std::string& name, const MoeTarget& target,
                               ExpertFormat expert_format, int gpus_per_node,
                               const std::string& what = "--topology");

// Memory of one GPU of the replica (bytes).
struct GpuMemory {
  double usable_bytes = 0;          // hbm * memory_utilization
  double routed_weight_bytes = 0;   // this GPU's share of the routed experts
  double dense_weight_bytes = 0;    // replicated (dep) or sharded (tp) dense part
  double window_reserve_bytes = 0;  // sliding-window KV of the planned requests on this GPU
  double kv_bytes = 0;              // what is left for the compressed KV cache (may be < 0)
  std::int64_t kv_tokens = 0;       // kv_bytes / kv_bytes_per_token, floored (0 when negative)
  double weights() const { return routed_weight_bytes + dense_weight_bytes; }
};

// `planned_requests` is the concurrency per attention rank whose sliding windows are reserved.
GpuMemory gpu_memory(const MoeTarget& target, const MoeGpu& gpu, const ReplicaTopology& topology,
                     std::int64_t planned_requests);

// Throws InputError naming the topology, the GPU and the numbers that do not fit when the KV
// left after weights and window reserve cannot hold `min_context_tokens` for one request.
void require_fits(const MoeTarget& target, const MoeGpu& gpu, const ReplicaTopology& topology,
                  std::int64_t planned_requests, std::int64_t min_context_tokens);

}  // namespace sparksim
