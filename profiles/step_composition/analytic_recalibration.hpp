// Recalibration of the analytic (roofline) generator against database compositions: its
// efficiency constants (bandwidth, GEMM and attention efficiency, per-kernel overhead, per-step
// fixed cost) are fitted by Levenberg-Marquardt (Eigen) to the relative error of the analytic
// verify_time against the composed steps of fidelity_points(), over every (GPU, target) pair
// given, so analytic profiles of GPUs without data inherit what the database taught. The
// report gives the analytic-vs-database error by region before and after, per pair.
#pragma once

#include <string>
#include <vector>

#include "common/json_file.hpp"
#include "profiles/analytic_profile.hpp"
#include "profiles/fit/fit_error.hpp"

namespace sparksim {

struct RecalibrationPair {
  std::string gpu;  // the database's name, e.g. "h100-sxm"
  std::string target;
};

struct RecalibrationResult {
  RooflineConstants before;
  RooflineConstants after;
  std::vector<RecalibrationPair> pairs;
  std::vector<FitErrorReport> error_before;  // per pair: analytic vs composition, all points
  std::vector<FitErrorReport> error_after;
  double rms_relative_before = 0;  // the objective, root mean square of relative errors
  double rms_relative_after = 0;
  int iterations = 0;
};

// The five fitted constants, in the order the fitter uses them (names for reports and tests).
inline constexpr const char* kRecalibratedConstants[] = {"bandwidth_efficiency", "gemm_efficiency",
                                                         "attention_efficiency",
                                                         "kernel_overhead_us", "step_fixed_us"};

// Step times observed for one (GPU, target) pair: composed from the database, or synthetic.
struct RooflineObservations {
  RecalibrationPair pair;
  std::vector<BatchShape> shapes;
  std::vector<double> observed_ms;  // same length, > 0
};

struct RooflineFit {
  RooflineConstants constants;
  double rms_relative_before = 0, rms_relative_after = 0;
  int iterations = 0;
};

// The five constants that minimise Σ ((analytic verify_time - observed) / observed)² over every
// observation, starting from `start` (every other constant is kept). Deterministic.
RooflineFit fit_roofline_constants(const JsonFile& shapes,
                                   const std::vector<RooflineObservations>& observations,
                                   const RooflineConstants& start = {});

// The database's compositions of fidelity_points() for each pair, fitted as above.
RecalibrationResult recalibrate_analytic(const std::string& database_dir, const JsonFile& shapes,
                                         const std::vector<RecalibrationPair>& pairs,
                                         const RooflineConstants& start = {});

}  // namespace sparksim
