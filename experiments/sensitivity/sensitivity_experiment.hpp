// `sparksim sensitivity` as a library call: load and check a `sparksim.sensitivity/1` config
// (every problem before any simulation), run the study with the comparison's sweep (or the
// capacity plan's replica search) as the model, draw the tornado charts and write
// DIR/{sensitivity.csv, break_even.csv, sobol.csv, tornado.gp, tornado_<k>.png/.svg, report.html,
// study.json} through a staged directory (nothing half-written).
#pragma once

#include <string>

#include "experiments/sensitivity/sensitivity_config.hpp"
#include "experiments/sensitivity/sensitivity_study.hpp"

namespace sparksim {

struct SensitivityOptions {
  std::string config_path;
  std::string out_dir;
  int jobs = 0;  // threads per sweep; 0 = every CPU it may use
};

struct SensitivityRun {
  SensitivityConfig config;
  std::vector<StudyOutput> outputs;
  StudyResult result;
  double wall_s = 0;
};

SensitivityRun run_sensitivity(const SensitivityOptions& options);

}  // namespace sparksim
