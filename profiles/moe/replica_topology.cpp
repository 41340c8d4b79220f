// Topology names and per-GPU memory. The dense part is replicated on every attention
// data-parallel rank (dep) and split N ways under tensor-parallel attention (tp); the routed
// experts are split over the expert-parallel group in both (no redundant experts).
#include "profiles/moe/replica_topology.hpp"

#include <cmath>
#include <cstdio>

#include "common/input_error.hpp"

namespace sparksim {

namespace {

inline constexpr double kMemoryUtilization = 0.9;  // as the dense profiles (vLLM's default)

std::string gb(double bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f GB", bytes / 1e9);
  return buffer;
}

}  // namespace

ReplicaTopology parse_topology(const std::string& name, const MoeTarget& target,
                               ExpertFormat expert_format, int gpus_per_node,
                               const std::string& what) {
  const auto bad = [&](const std::string& why) {
    return InputError(what + ": '" + name + "' " + why);
  };
  ReplicaTopology t;
  std::string digits;
  if (name.rfind("dep", 0) == 0) {
    t.attention = AttentionParallel::kData;
    digits = name.substr(3);
  } else if (name.rfind("tp", 0) == 0) {
    t.attention = AttentionParallel::kTensor;
    digits = name.substr(2);
  } else {
    throw bad(
        "is not a topology; use dep<N> (attention data-parallel, experts expert-parallel over N "
        "GPUs) or tp<N> (attention tensor-parallel, experts expert-parallel over N GPUs), e.g. "
        "dep8, tp8");
  }
  if (digits.empty() || digits.size() > 4 ||
      digits.find_first_not_of("0123456789") != std::string::npos || digits[0] == '0') {
    throw bad("has no GPU count; use dep<N> or tp<N> with N in 1..1024, e.g. dep8");
  }
  const int n = std::stoi(digits);
  if (n > 1024) throw bad("has " + digits + " GPUs; at most 1024");
  if (gpus_per_node < 1) throw InputError(what + ": GPUs per node must be >= 1");
  if (target.routed_experts % n != 0) {
    throw bad("needs expert-parallel size " + digits + ", which does not divide " + target.name +
              "'s " + std::to_string(target.routed_experts) + " routed experts");
  }
  if (t.attention == AttentionParallel::kTensor && target.q_heads % n != 0) {
    throw bad("splits " + target.name + "'s " + std::to_string(target.q_heads) +
              " attention heads " + digits + " ways, which does not divide them");
  }
  t.name = name;
  t.gpus = n;
  t.expert_parallel = n;
  t.gpus_per_node = gpus_per_node;
  t.expert_format = expert_format;
  return t;
}

GpuMemory gpu_memory(const MoeTarget& target, const MoeGpu& gpu, const ReplicaTopology& topology,
                     std::int64_t planned_requests) {
  GpuMemory m;
  m.usable_bytes = gpu.hbm_bytes * kMemoryUtilization;
  m.routed_weight_bytes =
      target.routed_weight_bytes(topology.expert_format) / topology.expert_parallel;
  const bool sharded = topology.attention == AttentionParallel::kTensor;
  m.dense_weight_bytes = target.dense_weight_bytes() / (sharded ? topology.gpus : 1);
  // The KV is one shared latent (a single KV head), so tensor-parallel ranks each keep all of it:
  // under tp the cache is replicated, not split (why tp fits few requests).
  m.window_reserve_bytes =
      target.window_bytes_per_request() * static_cast<double>(planned_requests);
  m.kv_bytes = m.usable_bytes - m.weights() - m.window_reserve_bytes;
  const double per_token = target.kv_bytes_per_token();
  m.kv_tokens = m.kv_bytes > 0 ? static_cast<std::int64_t>(std::floor(m.kv_bytes / per_token)) : 0;
  return m;
}

void require_fits(const MoeTarget& target, const MoeGpu& gpu, const ReplicaTopology& topology,
                  std::int64_t planned_requests, std::int64_t min_context_tokens) {
  const GpuMemory m = gpu_memory(target, gpu, topology, planned_requests);
  if (m.kv_tokens >= min_context_tokens) return;
  throw InputError("--topology: " + topology.name + " (" +
                   expert_format_name(topology.expert_format) + " experts) does not fit " +
                   target.name + " on " + gpu.name + ": per GPU, weights " + gb(m.weights()) +
                   " (routed experts " + gb(m.routed_weight_bytes) + " + dense " +
                   gb(m.dense_weight_bytes) + ") and the sliding windows of " +
                   std::to_string(planned_requests) + " requests " + gb(m.window_reserve_bytes) +
                   " leave " + gb(m.kv_bytes) + " of the usable " + gb(m.usable_bytes) + " (" +
                   gb(gpu.hbm_bytes) + " x 0.9) for KV, " + std::to_string(m.kv_tokens) +
                   " tokens; " + std::to_string(min_context_tokens) + " are needed; use more GPUs" +
                   (topology.expert_format == ExpertFormat::kFp8 ? " or fp4 experts" : ""));
}

}  // namespace sparksim
