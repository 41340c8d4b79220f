// Telemetry file loader: the two curve kinds become one list of (concurrency, throughput) points.
// Monotonicity is checked per curve in file order: concurrency must rise along a concurrency
// curve, and fall along a frontier listed by rising tokens/s per user (a faster user experience
// means fewer requests per GPU); anything else is a misread plot or swapped columns.
#include "profiles/moe/telemetry_curve.hpp"

#include "common/input_error.hpp"
#include "profiles/moe/moe_target.hpp"

namespace sparksim {

namespace {

using Pointer = JsonFile::Pointer;

constexpr const char* kConcurrencyKey = "throughput_tok_s_per_gpu_vs_concurrency_per_gpu";
constexpr const char* kFrontierKey = "frontier_tok_s_per_user_vs_tok_s_per_gpu";

std::vector<TelemetryPoint> read_curve(const JsonFile& f, const std::string& key) {
  const Pointer at = Pointer("/" + key);
  const nlohmann::json& rows = f.get_array(at);
  if (rows.size() < 3) {
    f.fail(at, key + " has " + std::to_string(rows.size()) +
                   " points; a fit needs at least 3 (two fitted terms and one to check them)");
  }
  std::vector<TelemetryPoint> points;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::vector<double> pair = f.get_number_array(at / i, NumberRange::positive(), 2);
    if (pair.size() != 2) f.fail(at / i, key + "[" + std::to_string(i) + "] must be [x, y]");
    TelemetryPoint p;
    p.curve = key == kConcurrencyKey ? "concurrency" : "frontier";
    p.concurrency_per_gpu = key == kConcurrencyKey ? pair[0] : pair[1] / pair[0];
    p.tok_s_per_gpu = pair[1];
    if (!points.empty()) {
      const double before = points.back().concurrency_per_gpu;
      const bool rising = key == kConcurrencyKey;
      if (rising ? p.concurrency_per_gpu <= before : p.concurrency_per_gpu >= before) {
        f.fail(at / i, key + "[" + std::to_string(i) + "]: concurrency per GPU " +
                           format_number(p.concurrency_per_gpu) + " after " +
                           format_number(before) + " is not monotone (" +
                           (rising ? "concurrency must rise along the curve"
                                   : "tokens/s per user must rise and concurrency fall") +
                           ")");
      }
    }
    points.push_back(p);
  }
  return points;
}

}  // namespace

TelemetryCurve telemetry_from_json(const JsonFile& f) {
  f.get_object(Pointer(""));
  const std::string schema = f.get_string(Pointer("/schema"));
  if (schema != kTelemetrySchema) {
    f.fail(Pointer("/schema"),
           "schema is \"" + schema + "\"; must be \"" + kTelemetrySchema + "\"");
  }
  f.reject_unknown_keys(Pointer(""), {"schema", "source", "target", "baseline_drafter",
                                      kConcurrencyKey, kFrontierKey});
  TelemetryCurve c;
  c.path = f.path();
  c.source = f.get_string(Pointer("/source"));
  c.target = f.get_string(Pointer("/target"));
  if (!is_moe_target(c.target)) {
    f.fail(Pointer("/target"), "target is \"" + c.target +
                                   "\"; must be deepseek-v4-flash or "
                                   "deepseek-v4-pro");
  }
  c.baseline_drafter = f.get_string(Pointer("/baseline_drafter"));
  if (c.baseline_drafter != "mtp1") {
    f.fail(Pointer("/baseline_drafter"),
           "baseline_drafter is \"" + c.baseline_drafter + "\"; only mtp1 is supported");
  }
  if (!f.has(Pointer(std::string("/") + kConcurrencyKey)) &&
      !f.has(Pointer(std::string("/") + kFrontierKey))) {
    f.fail(Pointer(""),
           std::string("telemetry has no curve: give ") + kConcurrencyKey + " or " + kFrontierKey);
  }
  for (const char* key : {kConcurrencyKey, kFrontierKey}) {
    if (!f.has(Pointer(std::string("/") + key))) continue;
    for (const TelemetryPoint& p : read_curve(f, key)) c.points.push_back(p);
  }
  return c;
}

TelemetryCurve load_telemetry(const std::string& path) {
  return telemetry_from_json(JsonFile::load(path));
}

}  // namespace sparksim
