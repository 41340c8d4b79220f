// SweepConfig: an experiment as data. A JSON file (schema `sparksim.sweep/1`, README "Experiment
// configs") names one workload and profile, the systems to compare (drafter × policy), the loads
// (closed-loop concurrency or an arrival-rate scale) and the seeds; the sweep is their product.
// Loading validates everything before any point runs and reports every problem at once as
// `config.json:line: what`. The resolved form (defaults filled in) parses back to the same config.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_file.hpp"
#include "experiments/run/run_experiment.hpp"
#include "experiments/sweep/sweep_grid.hpp"  // a config's users walk its points

namespace sparksim {

inline constexpr const char* kSweepSchema = "sparksim.sweep/1";

enum class LoadKind { kConcurrency, kRateScale };
const char* load_kind_name(LoadKind kind);  // "concurrency" | "rate_scale"

// One compared system: a drafter, the verification policy that schedules its drafts, and the
// SPS belief that policy schedules against (profiles/sps_belief.hpp).
struct SweepSystem {
  std::string drafter;  // canonical name, e.g. "dspark-7"
  std::string policy;   // spec text, e.g. "async-topk:lag=2"
  int gamma = 1;
  std::string sps = RunOptions{}.sps;  // resolved: the system's own "sps" or the engine's
  bool sps_own = false;                // the config names a belief for this system
  std::string label() const {
    return drafter + " + " + policy + (sps_own ? " (sps " + sps + ")" : "");
  }
};

struct SweepConfig {
  std::string path;  // the file it came from (messages only)
  std::string title;
  std::string about;  // free text for the report
  std::string profile_path;

  // Workload: a trace file or a synthetic spec (closed loop when the load is concurrency).
  std::string trace_path;
  std::string trace_format;
  std::string domain;
  bool spread_buckets = false;
  std::int64_t max_requests = 0;
  std::string synthetic;
  double think_time_s = 0;
  double arrival_cv = 0;  // > 0: open-loop gaps re-drawn with this cv (RunOptions::arrival_cv)

  LoadKind load_kind = LoadKind::kConcurrency;
  std::vector<double> loads;  // users (integers) or rate scales, in the config's order
  std::vector<SweepSystem> systems;
  std::vector<std::uint64_t> seeds;

  std::string acceptance = RunOptions{}.acceptance;
  std::string engine;  // engine preset name ("" = none), from engine.preset
  std::int64_t max_running = RunOptions{}.max_running;
  std::int64_t max_batch_tokens = RunOptions{}.max_batch_tokens;
  std::string prefill = RunOptions{}.prefill;
  std::string sps = RunOptions{}.sps;  // engine.sps: the belief of systems that name none
  std::int64_t kv_capacity_tokens = RunOptions{}.kv_capacity_tokens;

  // Per-user speed is reported at p50 and at this percentile of tok/s/user (numpy convention:
  // 10 means 90% of requests are at least that fast).
  double percentile = 10;
  std::vector<double> tiers_tok_s_per_user;  // interactivity tiers (drawn, and `sparksim slo`)
  std::optional<std::size_t> baseline;       // index into systems

  // Filled by load_sweep_config from the profile (the report must say "analytic" when it is).
  std::string profile_source;
  std::string profile_label;

  std::size_t point_count() const { return systems.size() * loads.size() * seeds.size(); }
  // The config with every default written out; parse_sweep_config() reads it back unchanged.
  nlohmann::ordered_json resolved() const;
};

// Structure and names only (types, ranges, unknown keys, duplicate entries, drafter, policy and
// acceptance names and parameters, tiers and their baseline): no file is opened. Every problem
// found goes into one InputError. Used for configs stored in sweep outputs (merge).
SweepConfig parse_sweep_config(const JsonFile& file);

// parse_sweep_config + the inputs: the profile and trace (or synthetic spec) load, and one run of
// each system prepares (sparksim run's own validation). All problems are reported together.
SweepConfig load_sweep_config(const std::string& path);

// Checks the analysis settings after command-line overrides (slo's --tiers and --percentile):
// percentile in (0, 100), tiers finite and > 0, and a baseline whenever there are tiers.
// `where` prefixes the messages (the flag or the config's path). Throws InputError.
void check_analysis_settings(const SweepConfig& config, const std::string& where);

}  // namespace sparksim
