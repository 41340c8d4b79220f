// Replays a BenchmarkCase on a profile: the same requests, sent the way the benchmark client sent
// them (closed loop at max_concurrency, or paced by request_rate, or all at once), through one
// engine with the case's preset, and measures what the client would have: output throughput over
// the benchmark's duration, and TTFT, TPOT ((E2E - TTFT) / (output - 1), per request) and ITL
// (gaps between streamed chunks) as mean / median / p99. The engine preset's front end (the
// simulator's own, sim/front_end.hpp: intake and streaming on one serial worker, the same every
// command uses) takes each request in before the scheduler sees it and streams every chunk, so a
// busy front end queues requests and chunks and limits throughput. Client-side times (TTFT, TPOT,
// ITL, the duration) are when chunks leave it.
#pragma once

#include <optional>
#include <string>

#include "experiments/validate/benchmark_case.hpp"
#include "profiles/profile.hpp"
#include "sim/front_end_costs.hpp"

namespace sparksim {

struct SimulatedMetrics {
  double output_throughput = 0;  // tok/s
  MetricStats ttft_ms, tpot_ms, itl_ms;
  std::int64_t completed = 0;
  std::int64_t preemptions = 0;
  double duration_s = 0;
  double front_end_busy_s = 0;  // the serial front end's busy time (intake + streaming)
};

struct ReplayOptions {
  std::string drafter = "none";         // what the simulated engine speculates with
  std::string engine;                   // overrides the case's preset when not empty
  std::int64_t kv_capacity_tokens = 0;  // 0 = the profile's, at the preset's memory share
  // Replaces the preset's front end (the step-term fit tries its candidates with it).
  std::optional<FrontEndCosts> front_end;
};

// Throws InputError for an unknown preset or drafter; a request that cannot fit in KV is an error
// too (the real engine served it).
SimulatedMetrics replay_case(const BenchmarkCase& c, const Profile& profile,
                             const ReplayOptions& options = {});

}  // namespace sparksim
