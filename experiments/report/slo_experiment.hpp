// `sparksim slo` as a library call: a sweep (simulated now from a config, or read back from a
// pareto/merge output directory), evaluated against interactivity tiers (slo_analysis.hpp), written
// to DIR/slo.csv beside the sweep's points.csv, aggregates.csv and sweep.json.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "experiments/report/slo_analysis.hpp"
#include "experiments/sweep/sweep_config.hpp"

namespace sparksim {

struct SloOptions {
  std::string config_path;  // simulate this sweep ...
  std::string points_dir;   // ... or reuse a finished sweep's directory (exactly one of the two)
  std::string tiers;        // "80,120"; empty = the config's tiers_tok_s_per_user
  std::optional<double> percentile;  // of tok/s/user; default 50
  std::string out_dir;
  int jobs = 0;
  bool progress = true;
};

struct SloResult {
  SweepConfig config;
  SweepAnalysis analysis;
  SpeedMetric metric = SpeedMetric::kP50;
  std::vector<TierOutcome> outcomes;
  std::size_t points_simulated = 0;  // 0 when reusing a directory
  double wall_s = 0;
};

// Validates everything first (tiers, percentile in (0, 100), a baseline, the config or the
// directory) and throws one InputError listing every problem.
SloResult run_slo(const SloOptions& options);

}  // namespace sparksim
