// Measured against simulated, side by side: per case, every metric the benchmark has (output
// throughput; TTFT, TPOT, ITL mean / median / p99) with its simulated value and relative error,
// and the headline verdict over the check-only cases (calibration cases are reported apart, since
// the profile was fitted to them): mean and worst |error| of output throughput and median TPOT
// against the tolerances.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/validate/benchmark_case.hpp"
#include "experiments/validate/benchmark_replay.hpp"

namespace sparksim {

struct CaseResult {
  BenchmarkCase benchmark;
  SimulatedMetrics simulated;
  std::string profile_path;
  std::string profile_label;
};

struct Tolerances {
  double mean = 0.05;   // mean |relative error| over check cases
  double worst = 0.10;  // largest |relative error| of any check case
};

// |error| summary of one headline metric over a group of cases.
struct ErrorSummary {
  std::int64_t cases = 0;
  double mean_abs = 0;
  double worst_abs = 0;
  std::string worst_case;
};

struct ValidationVerdict {
  ErrorSummary throughput_check, tpot_median_check;  // check-only cases
  ErrorSummary throughput_calib, tpot_median_calib;  // calibration cases
  bool pass = false;  // check cases within both tolerances (vacuously false with no check case)
};

ValidationVerdict judge(const std::vector<CaseResult>& results, const Tolerances& tolerances);

// The table printed to stdout: one block per case, then the verdict.
std::string format_validation_table(const std::vector<CaseResult>& results,
                                    const ValidationVerdict& verdict, const Tolerances& tolerances);
// Markdown rows for docs/validation.md (one row per case: throughput and median TPOT).
std::string format_validation_markdown(const std::vector<CaseResult>& results);

nlohmann::ordered_json validation_report_json(const std::vector<CaseResult>& results,
                                              const ValidationVerdict& verdict,
                                              const Tolerances& tolerances);

}  // namespace sparksim
