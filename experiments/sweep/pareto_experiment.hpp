// `sparksim pareto` and `sparksim merge` as library calls: validate a sweep config, simulate its
// points (all of them, or one shard) in parallel, and write the sweep's files (sweep_report.hpp);
// merge joins shard directories into the files a single run writes, byte for byte.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "experiments/sweep/sweep_config.hpp"
#include "experiments/sweep/sweep_points.hpp"

namespace sparksim {

struct ParetoOptions {
  std::string config_path;
  std::string out_dir;
  int jobs = 0;       // worker threads; 0 = every CPU it may use
  std::string shard;  // "" = the whole sweep, else "i/N"
  bool plots = true;
  bool progress = true;  // shown only when stderr is a terminal
  // Check the config and options (all of them, as a run would) and stop: nothing is simulated or
  // written. What a batch submission (scripts/slurm/) runs before it queues any shard.
  bool check_only = false;
  // Overrides (sparksim slo): a percentile and tiers replacing the config's; nullopt/empty = keep.
  std::optional<double> percentile;
  std::optional<std::vector<double>> tiers;
};

struct SweepRunResult {
  SweepConfig config;
  std::size_t points_run = 0;
  // The same points under the other acceptance scenarios (a V4 sweep's band; 0 otherwise).
  std::size_t band_points_run = 0;
  int jobs = 1;
  double wall_s = 0;
  bool shard = false;
  std::string out_dir;
};

// Loads and validates the config (every problem at once, before any point runs), checks the
// output and shard options and gnuplot, then simulates and writes DIR. A shard writes only
// points.csv (its rows), sweep.json and shard.json; `sparksim merge` completes it.
SweepRunResult run_pareto(const ParetoOptions& options);

// Simulates `points` of `config` on `jobs` threads; returns points.csv's text (header included),
// rows in point order whatever the parallelism.
// `adjust` edits every point's run options first (run_sweep_point).
std::string simulate_points(const SweepConfig& config, const std::vector<SweepPoint>& points,
                            int jobs, bool progress, const RunOptionsAdjuster& adjust = {});

struct MergeResult {
  SweepConfig config;
  std::size_t shards = 0;
  std::size_t points = 0;
};

// Joins shard directories (each from `sparksim pareto --shard i/N` of one config) into `out_dir`.
// Checks that they share sweep.json byte for byte, that shards 1..N are each present once, and
// that every point of the sweep is present once; throws InputError listing what is wrong.
MergeResult merge_sweep_shards(const std::vector<std::string>& shard_dirs,
                               const std::string& out_dir, bool plots);

}  // namespace sparksim
