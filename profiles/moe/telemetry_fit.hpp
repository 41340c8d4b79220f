// Telemetry fit: turns a deployed MTP-1 baseline's measured curve into a per-GPU profile whose
// step times reproduce it. Each point gives a step time T = τ·C / X (C concurrency per GPU, X
// tokens/s per GPU, τ tokens per request-step of the baseline); T(B = 2C) is fitted as
//   T = fixed + per_token·B + expert_stream·(1 − (1 − k/E)^(g·B))
// (the third term: routed-expert weights streamed, saturating as a routing group of g ranks'
// tokens touches every expert; g is chosen on a grid, the rest by relative least squares with
// non-negative coefficients). Memory and drafter costs come from a reference analytic topology,
// the drafters scaled by the fitted/analytic step ratio. Provenance "telemetry".
#pragma once

#include <string>
#include <vector>

#include "profiles/moe/replica_topology.hpp"
#include "profiles/moe/telemetry_curve.hpp"
#include "profiles/profile.hpp"

namespace sparksim {

struct TelemetryFit {
  double tokens_per_step = 0;  // τ of the baseline used to turn throughput into step time
  double routing_group = 0;    // g
  double fixed_us = 0, per_token_us = 0, expert_stream_us = 0;
  double drafter_scale = 0;            // fitted step / analytic step, applied to draft costs
  std::vector<TelemetryPoint> points;  // all of the file's points
  std::vector<bool> fitted;            // per point: did it enter the fit
  std::vector<double> step_ms;         // from the telemetry
  std::vector<double> fitted_ms;       // the fit at the same points
};

// `tokens_per_step` is the baseline's mean accepted tokens per request-step (MTP-1: 1 + its
// acceptance). Throws InputError (at the file) when no fit has non-negative terms.
// `curves`: "both", "concurrency" or "frontier": which of the file's curves enter the fit.
TelemetryFit fit_telemetry(const TelemetryCurve& curve, double tokens_per_step,
                           const std::string& curves = "both");

// The profile: `reference` is the analytic profile of the assumed topology (memory, drafters).
Profile make_telemetry_profile(const TelemetryCurve& curve, const TelemetryFit& fit,
                               const Profile& reference, const std::string& date,
                               const std::string& git_sha);

inline constexpr const char* kTelemetryTool = "sparksim fit-telemetry (v4 telemetry fit r1)";

}  // namespace sparksim
