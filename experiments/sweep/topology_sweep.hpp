// `sparksim v4-topologies`: runs one DeepSeek-V4 comparison (a sweep config's systems, workload,
// tiers and baseline) on every topology of a TopologySweepConfig (each profile composed from the
// measured database in memory) and on its extra profiles (the telemetry fits), then reduces the
// tier outcomes over topologies to a median and a range. A baseline that misses a tier on a
// topology is counted as infeasible there, never turned into a ratio. Writes into DIR (staged):
//   profiles/<entry>.json      every profile simulated
//   <entry>/                   each sweep's points.csv, aggregates.csv, frontier.csv, sweep.json
//   topologies.csv             per entry × speed metric × tier × system: best throughput meeting
//                              the tier or "infeasible", the ratio vs the baseline or why none
//   budget.csv                 per entry × system × load: throughput, speed, verify budget, τ
//   summary.csv, summary.txt   per speed metric × tier × system: median [min, max] over the
//                              topologies, infeasible counts, the extra profiles, the published
//                              figures beside
// DeepSeek-V4 has no published DSpark acceptance, so every sweep runs under each acceptance
// scenario (sim/acceptance/acceptance_scenarios.hpp) unless the comparison's acceptance pins one:
// the files above are the default scenario's (exactly the runs made without a band), with the
// band over scenarios in added columns and lines, and
//   scenarios.csv              the summary's rows under every scenario
//   scenarios/<name>/          each other scenario's topologies.csv, budget.csv and sweeps
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "experiments/report/slo_analysis.hpp"
#include "experiments/sweep/sweep_analysis.hpp"
#include "experiments/sweep/sweep_config.hpp"
#include "experiments/sweep/topology_sweep_config.hpp"

namespace sparksim {

struct TopologyEntry {
  std::string name;  // "h200-dep8-tbo-balanced", or the extra profile's file stem
  std::string gpu, topology, routing;
  bool two_batch_overlap = false;
  bool extra = false;   // an extra profile (not pooled into the median)
  std::string refused;  // non-empty: the profile could not be built (does not fit: the numbers)
  std::string profile_path;  // under DIR, as written
  std::string profile_label;
  std::int64_t kv_tokens = 0;
  SweepAnalysis analysis;
  std::vector<TierOutcome> outcomes[2];  // [SpeedMetric]
};

// Every entry's sweep under one acceptance scenario.
struct ScenarioSweep {
  std::string name;         // the scenario; "-" when the acceptance names none (replay, curves=)
  std::string acceptance;   // the spec its sweeps ran with
  bool is_default = false;  // the target's default scenario (run with a band or pinned)
  std::vector<TopologyEntry> entries;
};

struct TopologySweepResult {
  TopologySweepConfig config;
  SweepConfig sweep;                   // the comparison, overrides applied
  std::vector<TopologyEntry> entries;  // under the first scenario: the top-level files
  // The scenarios run, the default first; one when the acceptance pins it (`no_band` says why).
  std::vector<ScenarioSweep> scenarios;
  std::string no_band;
  std::size_t points = 0;
  std::string summary_text;
};

struct TopologySweepOptions {
  std::string config_path;
  std::string out_dir;
  int jobs = 0;
  bool progress = true;
};

// Validates everything (config, its sweep config, database, extra profiles) before any point
// runs; throws one InputError listing every problem.
TopologySweepResult run_topology_sweep(const TopologySweepOptions& options);

// The median of `values` (the mean of the two middle ones for an even count); values non-empty.
double median_of(std::vector<double> values);

}  // namespace sparksim
