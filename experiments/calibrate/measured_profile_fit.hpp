// From a kernel sweep (kernels/calibration: sparksim_calibrate_kernels sweep) to a profile with
// provenance "measured": the verify and drafter time models are fitted by the one least-squares
// fitter (profiles/fit/), with every fourth point held out to report the fit's error.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "profiles/fit/fit_error.hpp"
#include "profiles/profile.hpp"

namespace sparksim {

struct MeasuredFitInputs {
  std::string sweep_csv;  // the sweep's rows
  // key=value lines the sweep wrote: device, target, host_overhead_us, weights_bytes,
  // kv_bytes_per_token, kv_capacity_tokens (what the backend's cache holds), median_noise.
  std::string info_path;
  std::string notes;  // why this profile exists (e.g. the CPU proof of the pipeline)
  std::string date;
  std::string git_sha;
};

struct MeasuredFit {
  Profile profile;
  nlohmann::ordered_json report;  // fitted terms, held-out error per model and region, noise
};

// Throws InputError (path:line) for a malformed sweep or info file, or a model without enough
// points to fit, before anything is written.
MeasuredFit fit_measured_profile(const MeasuredFitInputs& in);

}  // namespace sparksim
