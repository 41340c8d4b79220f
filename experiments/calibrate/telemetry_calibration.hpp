// Telemetry calibration, end to end: fit a profile to a deployed MTP-1 baseline's curve
// (profiles/moe/telemetry_fit.hpp), then simulate that baseline on the fitted profile at every
// telemetry point (closed loop, concurrency per GPU = the point's) and report how far the
// simulated curve is from the measured one. `sparksim profile telemetry` prints and writes
// this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiles/moe/telemetry_fit.hpp"

namespace sparksim {

struct TelemetryCheckRow {
  TelemetryPoint point;
  std::int64_t simulated_users = 0;  // closed-loop users (the point's concurrency, rounded)
  double simulated_tok_s_per_user = 0;
  double simulated_tok_s_per_gpu = 0;  // at the point's exact concurrency
  double relative_error = 0;           // simulated / telemetry throughput − 1
};

struct TelemetryCalibration {
  TelemetryFit fit;
  Profile profile;
  std::vector<TelemetryCheckRow> rows;
  double worst_abs_error() const;  // over the points that entered the fit
  std::string report_csv() const;  // one row per point
};

struct TelemetryCalibrationOptions {
  std::string reference_gpu = "h200";
  std::string reference_topology;  // "" = the target's default (Flash dep8, Pro dep32)
  std::string expert_format = "fp8";
  std::string curves = "both";  // which curves enter the fit (all are simulated)
  double duration_s = 120;      // simulated seconds per point
  std::uint64_t seed = 1;
  std::string date;
  std::string git_sha;
};

// Throws InputError for bad telemetry or options before simulating anything.
TelemetryCalibration calibrate_to_telemetry(const TelemetryCurve& curve,
                                            const TelemetryCalibrationOptions& options);

// The MTP-1 baseline's mean tokens per request-step in the simulator on mixed traffic: 1 + the
// mean of its per-domain acceptance (the DeepSeek-V3 report's 85-90%).
double mtp1_tokens_per_step();

}  // namespace sparksim
