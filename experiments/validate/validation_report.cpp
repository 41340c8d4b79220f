// Formatting and judging of replayed benchmarks.
#include "experiments/validate/validation_report.hpp"

#include <cmath>
#include <cstdio>

namespace sparksim {

namespace {

constexpr const char* kRowNames[] = {
    "output_throughput_tok_s", "ttft_mean_ms", "ttft_median_ms", "ttft_p99_ms",   "tpot_mean_ms",
    "tpot_median_ms",          "tpot_p99_ms",  "itl_mean_ms",    "itl_median_ms", "itl_p99_ms"};

struct Row {
  std::optional<double> measured;
  std::optional<double> simulated;
};

std::vector<Row> rows_of(const CaseResult& r) {
  const MeasuredMetrics& m = r.benchmark.measured;
  const SimulatedMetrics& s = r.simulated;
  std::vector<Row> rows{{m.output_throughput, s.output_throughput}};
  // Rows in kRowNames order: mean, median, p99 of TTFT, TPOT, ITL.
  const auto add = [&](const MetricStats& mm, const MetricStats& ss) {
    rows.push_back({mm.mean, ss.mean});
    rows.push_back({mm.median, ss.median});
    rows.push_back({mm.p99, ss.p99});
  };
  add(m.ttft_ms, s.ttft_ms);
  add(m.tpot_ms, s.tpot_ms);
  add(m.itl_ms, s.itl_ms);
  return rows;
}

std::optional<double> relative_error(const Row& row) {
  if (!row.measured || !row.simulated || !(*row.measured > 0)) return std::nullopt;
  return (*row.simulated - *row.measured) / *row.measured;
}

void accumulate(ErrorSummary& s, std::optional<double> error, const std::string& name) {
  if (!error) return;
  const double a = std::fabs(*error);
  s.mean_abs += a;
  ++s.cases;
  if (a >= s.worst_abs) {
    s.worst_abs = a;
    s.worst_case = name;
  }
}

void finish(ErrorSummary& s) {
  if (s.cases > 0) s.mean_abs /= static_cast<double>(s.cases);
}

std::string fmt(std::optional<double> x, const char* format = "%.2f") {
  if (!x) return "-";
  char b[64];
  std::snprintf(b, sizeof b, format, *x);
  return b;
}

std::string pct(std::optional<double> e) {
  if (!e) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", 100 * *e);
  return b;
}

nlohmann::ordered_json summary_json(const ErrorSummary& s) {
  return {{"cases", s.cases},
          {"mean_abs_error", s.mean_abs},
          {"worst_abs_error", s.worst_abs},
          {"worst_case", s.worst_case}};
}

nlohmann::json optional_json(std::optional<double> x) {
  return x ? nlohmann::json(*x) : nlohmann::json(nullptr);
}

}  // namespace

ValidationVerdict judge(const std::vector<CaseResult>& results, const Tolerances& t) {
  ValidationVerdict v;
  for (const CaseResult& r : results) {
    const auto rows = rows_of(r);
    const bool calib = r.benchmark.role == CaseRole::kCalibration;
    accumulate(calib ? v.throughput_calib : v.throughput_check, relative_error(rows[0]),
               r.benchmark.name);
    accumulate(calib ? v.tpot_median_calib : v.tpot_median_check, relative_error(rows[5]),
               r.benchmark.name);
  }
  for (ErrorSummary* s :
       {&v.throughput_check, &v.tpot_median_check, &v.throughput_calib, &v.tpot_median_calib}) {
    finish(*s);
  }
  const auto ok = [&](const ErrorSummary& s) {
    return s.cases > 0 && s.mean_abs <= t.mean && s.worst_abs <= t.worst;
  };
  v.pass = ok(v.throughput_check) && ok(v.tpot_median_check);
  return v;
}

std::string format_validation_table(const std::vector<CaseResult>& results,
                                    const ValidationVerdict& v, const Tolerances& t) {
  std::string out;
  char line[256];
  for (const CaseResult& r : results) {
    const BenchmarkCase& b = r.benchmark;
    out += "== " + b.name + "  [" + case_role_name(b.role) + "]\n";
    out += "   engine " + (b.engine.empty() ? std::string("(run options)") : b.engine) +
           (b.engine_version.empty() ? "" : " (measured on " + b.engine_version + ")") +
           "; workload: " + b.workload.lengths + "\n";
    out += "   profile " + r.profile_label + "\n";
    std::snprintf(line, sizeof line, "   %-26s %12s %12s %9s\n", "metric", "measured", "simulated",
                  "error");
    out += line;
    const auto rows = rows_of(r);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].measured) continue;
      std::snprintf(line, sizeof line, "   %-26s %12s %12s %9s\n", kRowNames[i],
                    fmt(rows[i].measured).c_str(), fmt(rows[i].simulated).c_str(),
                    pct(relative_error(rows[i])).c_str());
      out += line;
    }
  }
  const auto summary = [&](const char* what, const ErrorSummary& s) {
    std::snprintf(line, sizeof line, "%-44s %2lld cases, mean |err| %5.1f%%, worst %5.1f%% (%s)\n",
                  what, static_cast<long long>(s.cases), 100 * s.mean_abs, 100 * s.worst_abs,
                  s.worst_case.c_str());
    out += line;
  };
  out += "\n";
  summary("check cases: output throughput", v.throughput_check);
  summary("check cases: median TPOT", v.tpot_median_check);
  summary("calibration cases (fitted): output throughput", v.throughput_calib);
  summary("calibration cases (fitted): median TPOT", v.tpot_median_calib);
  std::snprintf(line, sizeof line,
                "verdict: %s (targets on check cases: mean <= %.0f%%, worst <= %.0f%%)\n",
                v.pass ? "PASS" : "FAIL", 100 * t.mean, 100 * t.worst);
  out += line;
  return out;
}

std::string format_validation_markdown(const std::vector<CaseResult>& results) {
  std::string out =
      "| case | role | out tok/s measured | simulated | error | median TPOT ms measured | "
      "simulated | error |\n|---|---|---|---|---|---|---|---|\n";
  for (const CaseResult& r : results) {
    const auto rows = rows_of(r);
    out += "| " + r.benchmark.name + " | " + case_role_name(r.benchmark.role) + " | " +
           fmt(rows[0].measured) + " | " + fmt(rows[0].simulated) + " | " +
           pct(relative_error(rows[0])) + " | " + fmt(rows[5].measured) + " | " +
           fmt(rows[5].simulated) + " | " + pct(relative_error(rows[5])) + " |\n";
  }
  return out;
}

nlohmann::ordered_json validation_report_json(const std::vector<CaseResult>& results,
                                              const ValidationVerdict& v, const Tolerances& t) {
  nlohmann::ordered_json j;
  j["schema"] = "sparksim.validation-report/1";
  j["tolerances"] = {{"mean_abs_error", t.mean}, {"worst_abs_error", t.worst}};
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (const CaseResult& r : results) {
    nlohmann::ordered_json c;
    c["name"] = r.benchmark.name;
    c["role"] = case_role_name(r.benchmark.role);
    c["source"] = r.benchmark.source;
    c["origin"] = r.benchmark.origin;
    c["engine"] = r.benchmark.engine;
    c["engine_version"] = r.benchmark.engine_version;
    c["workload"] = r.benchmark.workload.lengths;
    c["profile"] = r.profile_path;
    c["profile_label"] = r.profile_label;
    c["simulated_completed"] = r.simulated.completed;
    c["simulated_duration_s"] = r.simulated.duration_s;
    c["simulated_preemptions"] = r.simulated.preemptions;
    nlohmann::ordered_json metrics;
    const auto rows = rows_of(r);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].measured) continue;
      metrics[kRowNames[i]] = {{"measured", optional_json(rows[i].measured)},
                               {"simulated", optional_json(rows[i].simulated)},
                               {"relative_error", optional_json(relative_error(rows[i]))}};
    }
    c["metrics"] = metrics;
    cases.push_back(c);
  }
  j["cases"] = cases;
  j["check"] = {{"output_throughput", summary_json(v.throughput_check)},
                {"tpot_median", summary_json(v.tpot_median_check)}};
  j["calibration"] = {{"output_throughput", summary_json(v.throughput_calib)},
                      {"tpot_median", summary_json(v.tpot_median_calib)}};
  j["pass"] = v.pass;
  return j;
}

}  // namespace sparksim
