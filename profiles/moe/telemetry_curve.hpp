// TelemetryCurve: a deployed baseline's measured capacity curve, the input of a telemetry fit.
// File schema "sparksim.telemetry/1" (docs/moe.md): target, baseline drafter, and one or both of
// throughput per GPU against concurrency per GPU, and throughput per GPU against tokens/s per
// user (a frontier; its concurrency per GPU is throughput / tokens-per-user). Every curve needs
// at least three points and a concurrency that rises monotonically along it.
#pragma once

#include <string>
#include <vector>

#include "common/json_file.hpp"

namespace sparksim {

struct TelemetryPoint {
  double concurrency_per_gpu = 0;
  double tok_s_per_gpu = 0;
  std::string curve;  // "concurrency" | "frontier"
  double tok_s_per_user() const { return tok_s_per_gpu / concurrency_per_gpu; }
};

struct TelemetryCurve {
  std::string path;
  std::string source;            // where the numbers come from
  std::string target;            // a MoE target name
  std::string baseline_drafter;  // "mtp1"
  std::vector<TelemetryPoint> points;
};

// Validates everything before returning; errors are `path:line: what` (InputError).
TelemetryCurve telemetry_from_json(const JsonFile& file);
TelemetryCurve load_telemetry(const std::string& path);

inline constexpr const char* kTelemetrySchema = "sparksim.telemetry/1";

}  // namespace sparksim
