// From points to conclusions: the seeds of each (system, load) pooled into a mean with a 95%
// confidence interval, and each system's Pareto frontier of throughput per GPU against per-user
// speed (at p50 and at the config's percentile). Input is points.csv as read back, so a single
// run and merged shards reach the same numbers from the same text.
#pragma once

#include <cstddef>
#include <vector>

#include "experiments/sweep/seed_statistics.hpp"
#include "experiments/sweep/sweep_config.hpp"
#include "experiments/sweep/sweep_points.hpp"

namespace sparksim {

// One (system, load) over all its seeds.
struct LoadAggregate {
  std::size_t system = 0;
  std::size_t load = 0;  // index into config.loads
  SeedStats throughput_tok_s_per_gpu;
  SeedStats tok_s_per_user_p50;
  SeedStats tok_s_per_user_at_percentile;
  SeedStats running_requests_mean;
  SeedStats tau_mean;
  SeedStats verify_tokens_per_request_step_mean;
  SeedStats ttft_ms_p99;
};

// Which per-user speed a frontier uses.
enum class SpeedMetric { kP50, kAtPercentile };

struct SweepAnalysis {
  // system-major, then load in the config's order (aggregates[s * loads + l]).
  std::vector<LoadAggregate> aggregates;
  // Per system: indices into `aggregates` of its frontier points, by speed ascending.
  std::vector<std::vector<std::size_t>> frontier_p50;
  std::vector<std::vector<std::size_t>> frontier_at_percentile;

  const std::vector<std::vector<std::size_t>>& frontier(SpeedMetric m) const {
    return m == SpeedMetric::kP50 ? frontier_p50 : frontier_at_percentile;
  }
};

// `points` must hold every point of `config` exactly once, each agreeing with expand_points on
// drafter, policy, load and seed; throws InputError naming the first row that does not (a
// points.csv from another config, or an incomplete merge).
SweepAnalysis analyze_sweep(const SweepConfig& config, const std::vector<PointRecord>& points);

// The per-user speed of an aggregate for `m`.
const SeedStats& speed_of(const LoadAggregate& a, SpeedMetric m);

}  // namespace sparksim
