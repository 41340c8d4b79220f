// One cluster simulation, as `sparksim cluster` (and `sparksim plan`) use it:
// ClusterOptions (RunOptions + the cluster's own) → prepare_cluster() validates all of them at
// once, before any work → execute_cluster() builds the SimGrid platform (a bad platform file or a
// replica the router cannot reach is an InputError here, before anything is simulated), runs the
// replicas and writes the same summary `sparksim run` writes, for the whole cluster, plus
// per-replica sections, KV transfers and link utilisation.
//
// SimGrid allows one simulation per process: execute_cluster() and cluster_to_directory() once per
// process; cluster_summary_in_subprocess() as often as needed (each in a forked child).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/named_spec.hpp"
#include "experiments/run/request_samples.hpp"
#include "experiments/run/run_experiment.hpp"
#include "sim/cluster/cluster_simulation.hpp"
#include "sim/cluster/platform.hpp"

namespace sparksim {

struct ClusterOptions {
  RunOptions run;  // workload, profile, drafter, policy, acceptance, seed, engine limits, out_dir

  std::int64_t replicas = 0;  // built-in topology: required (>= 1); platform file: 0 = all hosts
  std::string platform_path;  // a SimGrid platform file instead of the built-in topology
  std::string router_host = "router";  // platform file: the router's host; the others are replicas
  std::string router = "round-robin";
  std::int64_t prefill_replicas = 0;  // > 0: the first P replicas prefill, the others decode

  // Built-in topology; 0 keeps the default of BuiltinTopology. Not with a platform file.
  std::int64_t gpus_per_node = 0;
  double nvlink_bandwidth_gb_s = 0;  // per GPU and direction, GB = 1e9 bytes
  double nvlink_latency_us = 0;
  double network_bandwidth_gb_s = 0;  // per GPU and direction
  double network_latency_us = 0;

  std::vector<std::string> simgrid_config;  // extra SimGrid options, "key:value"

  // Threads for the replicas' steps (run_cluster_simulation's `threads`; 0 = two, or one on a
  // one-CPU machine). Changes no output; a plan's searches, already side by side, keep 1.
  std::int64_t threads = 1;
};

struct ClusterSetup {
  ClusterOptions options;
  RunSetup run;
  NamedSpec router_spec;
  PlatformSpec platform;
};

// Throws one InputError listing every problem found (one per line), the run's included.
ClusterSetup prepare_cluster(const ClusterOptions& options);
// For a caller that already holds a validated run (plan's search over replica counts): checks the
// cluster's own options only; options.run is ignored.
ClusterSetup prepare_cluster(const RunSetup& run, const ClusterOptions& options);

struct ClusterOutcome {
  ClusterStats stats;
  nlohmann::ordered_json summary;
  nlohmann::ordered_json config;
  std::string timeseries_csv;  // the whole cluster's, `sparksim run`'s columns
  std::string transfers_csv;   // one row per KV transfer (header only when colocated)
  std::string placement_csv;   // request_id,replica for each completed request, completion order
};

// Builds the platform, simulates, summarises; per-request rows stream to `requests_csv` (may be
// null) as requests complete. Once per process (SimGrid).
ClusterOutcome execute_cluster(const ClusterSetup& setup, std::ostream* requests_csv);

// prepare_cluster + execute_cluster + DIR/{summary.json, requests.csv, timeseries.csv,
// transfers.csv, placement.csv, config.json} through a staged directory. Returns the summary.
nlohmann::ordered_json cluster_to_directory(const ClusterOptions& options);

struct ClusterResult {
  nlohmann::ordered_json summary;
  std::string requests_csv;  // `sparksim run`'s requests.csv columns, the whole cluster's rows
};

// execute_cluster in a forked child (no files written), any number of times per process. Same
// errors as execute_cluster. (A plan's children run execute_cluster_samples instead:
// experiments/plan/cluster_child_answer.hpp.)
ClusterResult execute_cluster_in_subprocess(const ClusterSetup& setup);

// What a capacity plan needs of one cluster run, without the summary, requests.csv or placement:
// the summary's request and token counts and duration, and every completed request's samples in
// completion order (the values requests.csv reads back as).
struct ClusterSampleRun {
  std::int64_t requests_total = 0;
  std::int64_t requests_completed = 0;
  std::int64_t requests_rejected_kv = 0;
  std::int64_t output_tokens = 0;
  double duration_s = 0;
  RequestSamples samples;
};
// Sees each completed request's samples and its completion time as they are counted.
using ClusterSampleObserver = std::function<void(const RequestSample&, SimTime done)>;
// `stop` (may be null): once the observer sets it, the run ends before its next event
// (run_cluster_simulation's `stop`) and the counts are those so far.
ClusterSampleRun execute_cluster_samples(const ClusterSetup& setup,
                                         const ClusterSampleObserver& observer = {},
                                         const bool* stop = nullptr);

}  // namespace sparksim
