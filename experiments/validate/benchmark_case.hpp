// BenchmarkCase: one end-to-end serving measurement to replay: the workload (per-request lengths,
// number of prompts, concurrency or request rate), the engine preset it ran with, and what the
// benchmark measured (output throughput; TTFT, TPOT, ITL as mean / median / p99 where known).
//
// Read from a `vllm bench serve --save-result` JSON (with --save-detailed it carries per-request
// input_lens / output_lens), from a native description ("sparksim.benchmark/1"), or from a bundled
// set of native cases ("sparksim.validation-set/1"). Every problem is `path:line: what`.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "traces/request_spec.hpp"

namespace sparksim {

// One latency metric's statistics in milliseconds; a benchmark may lack any of them.
struct MetricStats {
  std::optional<double> mean, median, p99;
};

struct MeasuredMetrics {
  std::optional<double> output_throughput;  // output tokens / benchmark duration, tok/s
  MetricStats ttft_ms, tpot_ms, itl_ms;
};

// What the benchmark client did: send `requests` (lengths; arrivals ignored) in order, at most
// `max_concurrency` in flight (0 = no limit), paced by `request_rate` (inf = all at once).
struct BenchmarkWorkload {
  std::vector<RequestSpec> requests;
  std::int64_t max_concurrency = 0;
  double request_rate = std::numeric_limits<double>::infinity();
  double burstiness = 1.0;  // gamma shape of the inter-arrival times (1 = Poisson)
  std::uint64_t seed = 1;   // arrival draws for a finite rate
  std::string lengths;      // how the lengths were obtained, for reports
};

enum class CaseRole { kCheck, kCalibration };

struct BenchmarkCase {
  std::string name;
  std::string source;          // who measured it, where it was published
  std::string engine;          // preset name (sim/engine_preset.hpp); "" = run options' limits
  std::string engine_version;  // e.g. "vLLM v0.11.0" (reports only)
  std::string target;          // the profile's target, e.g. "qwen3-8b"
  CaseRole role = CaseRole::kCheck;
  // What an all-at-once calibration case's output throughput fits (step_term_fit.hpp):
  // "frontend_request_ms" (bound by the front end's intake) or nothing (empty: no term is fitted
  // to it). Native key "calibrates"; only with role "calibration".
  std::string calibrates;
  BenchmarkWorkload workload;
  MeasuredMetrics measured;
  std::string origin;  // path (and line) it was read from
};

// `vllm bench serve` result file. Per-request lengths come from input_lens/output_lens when saved
// (failed requests, output length 0, are left out); otherwise every request gets the mean lengths
// (total_input_tokens / completed, likewise for output), spread so the totals match exactly.
BenchmarkCase read_vllm_bench_result(const std::string& path);

// A native description (one case) or a set ("cases": [...]); both by their "schema".
std::vector<BenchmarkCase> read_benchmark_cases(const std::string& path);

// True when the file looks like a vllm bench serve result (has "output_throughput" or
// "input_lens" and no "schema").
bool is_vllm_bench_result(const std::string& path);

const char* case_role_name(CaseRole role);

}  // namespace sparksim
