// `sparksim calibrate confidence`: fits Sequential Temperature Scaling to a drafter's confidences,
// from an acceptance log or from a simulation run for the purpose, and reports ECE, ROC-AUC and
// Brier per position before and after, on requests held out of the fit. The temperatures go to a
// file that `--acceptance calibrated:sts=PATH` loads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/run/run_experiment.hpp"
#include "sim/acceptance/confidence_metrics.hpp"

namespace sparksim {

struct CalibrateOptions {
  std::string acceptance_log;  // a sparksim acceptance log; else `run` is simulated to make one
  RunOptions run;              // workload, profile, drafter, acceptance, seed (out_dir unused)
  double heldout_fraction = 0.5;
  std::uint64_t split_seed = 1;
  std::string out_path;  // the temperatures file (JSON)
};

struct CalibrateResult {
  std::string source;  // the log's path, or a description of the simulated run
  int gamma = 0;
  std::int64_t rows_fit = 0, rows_heldout = 0;
  std::vector<double> temperatures;
  std::vector<PositionMetrics> before, after;  // held-out
};

// Validates (InputError listing every problem), fits, writes `out_path` atomically.
CalibrateResult run_calibration(const CalibrateOptions& options);

// The per-position table `sparksim calibrate confidence` prints.
std::string format_calibration(const CalibrateResult& result);

}  // namespace sparksim
