// Replays a BenchmarkCase on a profile: the same requests, sent the way the benchmark client sent
// them (closed loop at max_concurrency, or paced by request_rate, or all at once), through one
// engine with the case's preset, and measures what the client would have: output throughput over
// the benchmark's duration, and TTFT, TPOT ((E2E - TTFT) / (output - 1), per request) and ITL
// (gaps between streamed chunks) as mean / median / p99. The profile's step terms say the front
// end: frontend_ms delays each request before the scheduler sees it (latency, no queue);
// frontend_batch_ms + frontend_request_ms x requests per intake batch (those handed in together)
// and frontend_chunk_us per chunk streamed are a serial worker's busy time (FrontEndServer), so a
// busy front end queues requests and chunks and limits throughput. Client-side times (TTFT, TPOT,
// ITL, the duration) are when chunks leave it.
#pragma once

#include <string>

#include "experiments/validate/benchmark_case.hpp"
#include "profiles/profile.hpp"

namespace sparksim {

struct SimulatedMetrics {
  double output_throughput = 0;  // tok/s
  MetricStats ttft_ms, tpot_ms, itl_ms;
  std::int64_t completed = 0;
  std::int64_t preemptions = 0;
  double duration_s = 0;
  double frontend_busy_s = 0;  // the serial front end's busy time (intake + streaming)
};

struct ReplayOptions {
  std::string drafter = "none";         // what the simulated engine speculates with
  std::string engine;                   // overrides the case's preset when not empty
  std::int64_t kv_capacity_tokens = 0;  // 0 = the profile's, at the preset's memory share
};

// Whether the step terms' serial front-end costs apply to a benchmark measured on `engine_version`
// ("SGLang v0.5.3"): yes when either is unnamed or the software names (first words) match.
bool serial_front_end_applies(const StepTerms& terms, const std::string& engine_version);

// Throws InputError for an unknown preset or drafter; a request that cannot fit in KV is an error
// too (the real engine served it).
SimulatedMetrics replay_case(const BenchmarkCase& c, const Profile& profile,
                             const ReplayOptions& options = {});

}  // namespace sparksim
