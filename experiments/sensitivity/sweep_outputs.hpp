// The outputs a sensitivity study reads off one sweep (a `pareto`/`slo` comparison): per tier and
// per system other than the baseline, the tier gain (best throughput per GPU meeting the tier ÷
// the baseline's, `sparksim slo`'s ratio) and the system's throughput per GPU at the tier. A tier
// the system (or the baseline) cannot meet gives NaN: the report says "unmet", never zero.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "experiments/sweep/sweep_config.hpp"
#include "experiments/sweep/sweep_points.hpp"

namespace sparksim {

enum class OutputKind { kTierGain, kThroughputAtTier };

struct SweepOutput {
  OutputKind kind = OutputKind::kTierGain;
  std::size_t system = 0;  // index into config.systems
  double tier = 0;         // tok/s/user
  std::string name;        // "gain dspark-7 + async-topk @ 100 tok/s/user"
  // The comparison flips where a tier gain crosses 1 (break-even); throughput has no flip.
  bool is_comparison() const { return kind == OutputKind::kTierGain; }
};

// Gains first (tier-major, systems in config order), then throughputs. Needs a baseline and tiers.
std::vector<SweepOutput> sweep_outputs(const SweepConfig& config);

// Simulates every point of `config` (each point's options edited by `adjust`) on `jobs` threads
// and returns the outputs' values, in `outputs` order.
std::vector<double> evaluate_sweep_outputs(const SweepConfig& config,
                                           const RunOptionsAdjuster& adjust,
                                           const std::vector<SweepOutput>& outputs, int jobs);

}  // namespace sparksim
