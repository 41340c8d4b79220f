// TopologySweepConfig (schema `sparksim.v4-topologies/1`): one DeepSeek-V4 comparison (a bundled
// `sparksim.sweep/1` config: workload, systems, tiers, baseline) repeated on every plausible
// replica topology, GPU × topology (dep<N>: expert-parallel size N) × two-batch overlap × expert
// routing (the measured routing distributions standing for load imbalance), each profile composed
// from the measured database; plus optional profiles as they are (the telemetry fits) and the
// paper's published figures to print beside the prediction. Every problem is reported at once as
// `config.json:line: what` before anything runs. experiments/configs/README.md documents the keys.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace sparksim {

inline constexpr const char* kTopologySweepSchema = "sparksim.v4-topologies/1";

// A published range, e.g. "+51-52% aggregate throughput at 80 tok/s/user" (gains as fractions).
struct PublishedGain {
  double low = 0, high = 0;
};

struct PublishedFigures {
  std::string source;
  std::optional<double> tier_tok_s_per_user;  // the tier the throughput gain is quoted at
  std::optional<PublishedGain> throughput_gain_at_tier;
  std::optional<PublishedGain> speed_gain_at_matched_throughput;
};

struct TopologySweepConfig {
  std::string path;
  std::string title, about;
  std::string sweep_path;  // the sparksim.sweep/1 config whose systems, workload and tiers run
  std::string target;      // deepseek-v4-flash | deepseek-v4-pro
  std::vector<std::string> gpus;        // h100 | h200
  std::vector<std::string> topologies;  // dep<N>
  std::vector<bool> two_batch_overlap;
  std::vector<std::string> routing;  // balanced | power_law_1.01 | power_law_1.2
  int gpus_per_node = 8;
  std::string database_dir = "profiles/data/aic";
  std::vector<std::string> extra_profiles;  // run as they are (e.g. the telemetry fits)
  std::vector<double> loads;                // empty: the sweep config's
  std::vector<std::int64_t> seeds;          // empty: the sweep config's
  std::optional<PublishedFigures> published;
};

// Parses and checks the structure and names (targets, GPUs, topologies against the target's
// experts, routings); the files it names are checked by run_topology_sweep before any point runs.
TopologySweepConfig load_topology_sweep_config(const std::string& path);

}  // namespace sparksim
