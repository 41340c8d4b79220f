// One simulation run, as `sparksim run` and the experiment drivers use it:
// RunOptions (plain values from a command line or a sweep config) → prepare_run() validates all of
// them, reporting every problem at once before any work → execute_run() simulates → the summary,
// per-request rows, per-second series and the resolved config are written to a staged directory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/named_spec.hpp"
#include "profiles/profile.hpp"
#include "profiles/sps_belief.hpp"
#include "sim/engine.hpp"
#include "sim/simulation.hpp"
#include "sim/workload.hpp"
#include "traces/request_spec.hpp"
#include "traces/synthetic.hpp"

namespace sparksim {

struct RunOptions {
  // Workload: exactly one of trace_path, synthetic (open loop), closed_loop_users > 0 (with
  // synthetic giving lengths and duration).
  std::string trace_path;
  std::string trace_format;  // "" = detect
  std::string domain;        // "" = the trace's default
  bool spread_buckets = false;
  std::string synthetic;
  std::int64_t closed_loop_users = 0;
  double think_time_s = 0;
  std::int64_t closed_loop_requests = 0;  // closed loop: stop after this many requests (0 = none)
  double rate_scale = 1.0;
  // Every request's prompt / output tokens x these (traces and open-loop synthetic workloads;
  // traces/trace_loader.hpp scale_lengths). 1 = the workload's own lengths.
  double prompt_length_scale = 1.0;
  double output_length_scale = 1.0;
  // > 0: an open-loop workload's inter-arrival gaps re-drawn as a gamma renewal process with this
  // coefficient of variation at the workload's own mean rate (traces/arrival_burstiness.hpp),
  // from the run's seed. 0 = the workload's own arrivals.
  double arrival_cv = 0;
  std::int64_t max_requests = 0;  // keep only the first N trace rows (0 = all)

  std::string profile_path;
  // A profile already in memory instead of the file (plan's topology search composes one per
  // topology); profile_path then only names it in outputs.
  std::shared_ptr<const Profile> profile;
  std::string drafter = "dspark-7";
  std::string policy = "static:k=1";
  std::string acceptance = "calibrated";
  std::string acceptance_log;        // replay this acceptance log (short for replay:log=PATH)
  std::string write_acceptance_log;  // record every request-step's draws to this file
  bool write_steps = false;          // DIR/steps.csv: every step's batch (for replay on kernels)
  std::uint64_t seed = 1;

  // Engine preset (sim/engine_preset.hpp) the limits below came from, "" = none. The CLI copies a
  // preset's limits into these fields (flags given explicitly win); prepare_run() checks the name
  // and applies the preset's KV memory share to the profile.
  std::string engine;
  std::int64_t max_running = 256;
  std::int64_t max_batch_tokens = 8192;
  std::string prefill = "chunked";      // chunked | separate
  std::string sps = "capture";          // the scheduler's SPS belief: capture | live | reference
  std::int64_t kv_capacity_tokens = 0;  // 0 = from the profile
  // Host scheduling overhead per step paid by synchronous policies (µs, >= 0); unset = the
  // profile's host_overhead_us. Asynchronous policies (static, async-topk, or any `sync=off`)
  // never pay it.
  std::optional<double> host_overhead_us;

  std::string out_dir;
};

// Everything a run needs, validated.
struct RunSetup {
  RunOptions options;
  Trace trace;  // open loop (trace file or synthetic); empty for closed loop
  std::optional<SyntheticSpec> synthetic;
  std::optional<ClosedLoopOptions> closed_loop;
  Profile profile;
  EngineConfig engine;
  NamedSpec policy_spec;
  NamedSpec acceptance_spec;
  int gpus = 1;  // GPUs the run occupies (a separate prefill stage doubles the replica's)
  SpsBelief sps_belief = kDefaultSpsBelief;  // the scheduler's SPS belief (--sps)
};

// Throws one InputError listing every problem found (one per line).
RunSetup prepare_run(const RunOptions& options);

struct RunOutcome {
  SimulationStats stats;
  nlohmann::ordered_json summary;
  nlohmann::ordered_json config;  // the resolved configuration
  std::string timeseries_csv;
};

// The resolved configuration (config.json) of a run: inputs, drafter, policy, engine limits and
// where each default came from. `sparksim cluster` starts its config.json from the same keys.
nlohmann::ordered_json run_config_json(const RunSetup& setup, bool policy_synchronous);

// The run's arrivals: its closed loop, or its open-loop trace (shared by run and cluster).
std::unique_ptr<Workload> make_run_workload(const RunSetup& setup);

// Simulates; per-request rows stream to `requests_csv` (may be null) as requests complete. With
// `acceptance_log`, every request-step's confidences and hidden outcome are written to it in the
// acceptance-log format (sim/acceptance/acceptance_log.hpp).
// With `steps_csv`, every step's batch is written as it ends (kStepsCsvHeader; one row per decode
// request or prefill chunk), the sequence kernels/calibration replays on a backend.
// `on_request_done` sees each completed request as it completes (a plan takes its samples there
// instead of reading requests.csv back).
RunOutcome execute_run(const RunSetup& setup, std::ostream* requests_csv,
                       std::ostream* acceptance_log = nullptr, std::ostream* steps_csv = nullptr,
                       const Engine::CompletionHandler& on_request_done = {});

inline constexpr const char* kStepsCsvHeader =
    "step,duration_us,gamma,drafter,kind,request,context,width,commits";

// prepare_run + execute_run + write DIR/{summary.json,requests.csv,timeseries.csv,config.json}
// through a staged directory (and the acceptance log, if asked, through a temporary name).
// Returns the summary.
nlohmann::ordered_json run_to_directory(const RunOptions& options);

// Summary keys that hold wall-clock measurements (excluded from determinism comparisons).
inline constexpr const char* kWallClockKeys[] = {"sim_wall_s", "request_steps_per_wall_s",
                                                 "speedup_vs_simulated_time"};

}  // namespace sparksim
