// The fitting stages (see the header). Replays are deterministic, so the fit is too.
#include "experiments/validate/step_term_fit.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>

#include "common/input_error.hpp"
#include "experiments/validate/benchmark_replay.hpp"
#include "profiles/profile_finishing.hpp"

namespace sparksim {

namespace {

struct Calibration {
  const BenchmarkCase* benchmark;
  const Profile* profile;
};

// The calibration cases by what they identify (the header's stages).
struct CalibrationGroups {
  std::vector<Calibration> closed;       // closed loop with a median ITL: the decode residual
  std::vector<Calibration> all_at_once;  // rate inf with a throughput: no term fits them (below)
  std::vector<Calibration> stalls;       // closed loop at c > 1 with an ITL p99: one intake alone
  std::vector<Calibration> intakes;      // "calibrates": "frontend_request_ms": the batch share
  std::string names;                     // every calibration case, "; "-separated
};

// The terms the fit varies, under the names they had when they all lived in the profile: the
// profile's step terms, and the front end's (which now belong to the engine preset,
// sim/engine_preset.cpp; fit_step_terms hands them back apart).
struct FitTerms : StepTerms {
  double frontend_ms = 0;          // FrontEndCosts::latency_ms
  double frontend_batch_ms = 0;    // FrontEndCosts::intake_batch_ms
  double frontend_request_ms = 0;  // FrontEndCosts::intake_request_ms
  double frontend_chunk_us = 0;    // FrontEndCosts::chunk_us
  std::string frontend_source;
  std::string frontend_engine;  // the server software they are fitted on ("vLLM")
};

// What one round of the fit carries from stage to stage: the terms so far, the intake's two
// shares as last fitted, and the report's lines.
struct FitState {
  StepTermFit fit;  // its log so far (the terms are handed back at the end)
  FitTerms fitted;
  double alone_ms = 0;    // one request's intake, batch + request (ITL p99 at c > 1)
  double request_ms = 0;  // the per-request share (all-at-once intake cases)
  FitTerms& terms() { return fitted; }
};

// "vllm" for "vLLM v0.11.0": the server software's name, lower case.
std::string software_name(const std::string& engine_version) {
  std::string name = engine_version.substr(0, engine_version.find(' '));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return name;
}

// The front end being fitted is one server's (frontend_engine): a case of another server gets its
// latency alone, as when these terms lived in the profile.
SimulatedMetrics replay_with(const Calibration& c, const FitTerms& terms) {
  Profile p = *c.profile;
  p.step_terms = static_cast<const StepTerms&>(terms);
  ReplayOptions options;
  options.front_end = FrontEndCosts{.latency_ms = terms.frontend_ms};
  const bool serial =
      terms.frontend_engine.empty() || c.benchmark->engine_version.empty() ||
      software_name(terms.frontend_engine) == software_name(c.benchmark->engine_version);
  if (serial) {
    options.front_end->intake_batch_ms = terms.frontend_batch_ms;
    options.front_end->intake_request_ms = terms.frontend_request_ms;
    options.front_end->chunk_us = terms.frontend_chunk_us;
  }
  return replay_case(*c.benchmark, p, options);
}

std::string fixed(double x, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, x);
  return b;
}

std::string round_label(int round) {
  return "round " + std::to_string(round + 1) + ": ";
}

// Whether simulated / measured rises or falls as the bisected parameter grows.
enum class Trend { kRising, kFalling };

// 24 halvings of [lo, hi] towards the root of `mean_log_ratio` (simulated over measured, in logs).
double bisect_log_ratio(const std::function<double(double)>& mean_log_ratio, double lo, double hi,
                        Trend trend) {
  for (int i = 0; i < 24; ++i) {
    const double mid = 0.5 * (lo + hi);
    const bool above = mean_log_ratio(mid) > 0;
    (above == (trend == Trend::kRising) ? hi : lo) = mid;
  }
  return 0.5 * (lo + hi);
}

// Mean over `cases` of log(simulated / measured ITL p99) with `terms`.
double mean_log_itl_p99_ratio(const std::vector<Calibration>& cases, const FitTerms& terms) {
  double sum = 0;
  for (const Calibration& c : cases) {
    sum +=
        std::log(replay_with(c, terms).itl_ms.p99.value_or(0) / *c.benchmark->measured.itl_ms.p99);
  }
  return sum / static_cast<double>(cases.size());
}

// Mean over `cases` of log(simulated / measured output throughput) with `terms`.
double mean_log_throughput_ratio(const std::vector<Calibration>& cases, const FitTerms& terms) {
  double sum = 0;
  for (const Calibration& c : cases) {
    sum += std::log(replay_with(c, terms).output_throughput /
                    *c.benchmark->measured.output_throughput);
  }
  return sum / static_cast<double>(cases.size());
}

// A frontend_request_ms case must send everything at once: its intake is then one batch.
void check_intake_case(const BenchmarkCase& c) {
  if (c.workload.max_concurrency == 0 && c.measured.output_throughput &&
      std::isfinite(c.workload.request_rate)) {
    throw InputError(c.origin +
                     ": \"calibrates\": \"frontend_request_ms\" needs every request sent "
                     "at once (request_rate inf, no max_concurrency): its intake is one batch");
  }
  if (c.workload.max_concurrency > 0 || !c.measured.output_throughput) {
    throw InputError(c.origin +
                     ": \"calibrates\": \"frontend_request_ms\" needs an all-at-once case "
                     "(no max_concurrency) with a measured output throughput");
  }
}

// Sorts the cases marked "role": "calibration" into the groups each stage fits to; a case whose
// target has no profile, or an intake case of the wrong shape, stops the fit.
CalibrationGroups group_calibration_cases(const std::vector<BenchmarkCase>& cases,
                                          const std::map<std::string, Profile>& profiles) {
  CalibrationGroups g;
  for (const BenchmarkCase& c : cases) {
    if (c.role != CaseRole::kCalibration) continue;
    const auto it = profiles.find(c.target);
    if (it == profiles.end()) throw InputError(c.origin + ": no profile for target " + c.target);
    const Calibration cal{&c, &it->second};
    g.names += (g.names.empty() ? "" : "; ") + c.name;
    const bool intake = c.calibrates == "frontend_request_ms";
    if (intake) check_intake_case(c);
    if (c.workload.max_concurrency > 0 && c.measured.itl_ms.median) {
      g.closed.push_back(cal);
      if (c.workload.max_concurrency > 1 && c.measured.itl_ms.p99) g.stalls.push_back(cal);
    } else if (c.workload.max_concurrency == 0 && c.measured.output_throughput) {
      (intake ? g.intakes : g.all_at_once).push_back(cal);
    }
  }
  if (g.closed.empty() && g.all_at_once.empty() && g.intakes.empty()) {
    throw InputError(
        "validate --calibrate-out: no usable calibration case (closed-loop cases with a median "
        "ITL, or all-at-once cases with an output throughput, marked \"role\": \"calibration\")");
  }
  return g;
}

// The serial front end is one server's: every case it is fitted to must name the same engine.
std::string front_end_engine(const CalibrationGroups& g) {
  std::vector<Calibration> front_end = g.stalls;
  front_end.insert(front_end.end(), g.intakes.begin(), g.intakes.end());
  std::string engine;
  for (const Calibration& c : front_end) {
    const std::string name =
        c.benchmark->engine_version.substr(0, c.benchmark->engine_version.find(' '));
    if (engine.empty()) {
      engine = name;
    } else if (engine != name) {
      throw InputError(c.benchmark->origin +
                       ": the serial front end is fitted to one server's "
                       "cases; its calibration cases name both " +
                       engine + " and " + name);
    }
  }
  return engine;
}

// Residual median ITL against concurrency, with the decode terms taken out again: a least-squares
// line, per_step_us + per_sequence_us x c, both kept >= 0.
void fit_decode_residual(const std::vector<Calibration>& closed, int round, FitState& s) {
  FitTerms& t = s.terms();
  FitTerms base = t;
  base.per_step_us = base.per_sequence_us = 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const Calibration& c : closed) {
    const double x = static_cast<double>(c.benchmark->workload.max_concurrency);
    const double y = 1e3 * (*c.benchmark->measured.itl_ms.median -
                            replay_with(c, base).itl_ms.median.value_or(0));
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double n = static_cast<double>(closed.size());
  const double det = n * sxx - sx * sx;
  double slope = det > 0 ? (n * sxy - sx * sy) / det : 0;
  slope = std::max(0.0, slope);
  t.per_sequence_us = slope;
  t.per_step_us = std::max(0.0, (sy - slope * sx) / n);
  s.fit.log.push_back(round_label(round) + "decode residual " + fixed(t.per_step_us, 1) + " us + " +
                      fixed(t.per_sequence_us, 2) + " us x concurrency (" +
                      std::to_string(closed.size()) + " cases)");
}

// Serial front end: a request taken in while others stream holds their next chunk back, which is
// what the measured ITL p99 shows at c > 1 (tens of ms against a ~8 ms step). That identifies one
// request's intake alone, batch + request; the per-request share comes from the intake cases
// (without one, it is all per request: FIFO, one intake each).
void fit_intake_alone(const CalibrationGroups& g, int round, FitState& s) {
  const auto with_alone = [&](FitTerms t, double alone_ms) {
    t.frontend_batch_ms = g.intakes.empty() ? 0 : std::max(0.0, alone_ms - s.request_ms);
    t.frontend_request_ms = g.intakes.empty() ? alone_ms : s.request_ms;
    return t;
  };
  const auto mean_log_ratio = [&](double alone_ms) {
    return mean_log_itl_p99_ratio(g.stalls, with_alone(s.terms(), alone_ms));
  };
  const double alone =
      mean_log_ratio(0) >= 0 ? 0.0 : bisect_log_ratio(mean_log_ratio, 0, 200, Trend::kRising);
  s.alone_ms = round_decimals(alone, 2);
  s.terms() = with_alone(s.terms(), s.alone_ms);
  s.fit.log.push_back(round_label(round) + "serial front end " + fixed(s.alone_ms, 2) +
                      " ms per request taken in alone (ITL p99, " +
                      std::to_string(g.stalls.size()) + " cases at c > 1)");
}

// Frontend: what TTFT still lacks once the steps are right (a latency that occupies no server).
void fit_frontend_latency(const std::vector<Calibration>& closed, int round, FitState& s) {
  FitTerms& t = s.terms();
  FitTerms no_frontend = t;
  no_frontend.frontend_ms = 0;
  double gap = 0;
  std::int64_t used = 0;
  for (const Calibration& c : closed) {
    if (!c.benchmark->measured.ttft_ms.mean) continue;
    gap +=
        *c.benchmark->measured.ttft_ms.mean - replay_with(c, no_frontend).ttft_ms.mean.value_or(0);
    ++used;
  }
  t.frontend_ms = used > 0 ? std::max(0.0, gap / static_cast<double>(used)) : 0;
  s.fit.log.push_back(round_label(round) + "frontend " + fixed(t.frontend_ms, 2) +
                      " ms per request (mean TTFT residual)");
}

// All requests at t = 0: one intake batch of N, released at batch + N x request, after which the
// engine runs; throughput falls as the per-request cost grows. The one-request intake (batch +
// request) stays what the ITL p99 fitted, unless no stall case measured it.
void fit_intake_batch_share(const CalibrationGroups& g, int round, FitState& s) {
  const auto with_request = [&](FitTerms t, double ms) {
    t.frontend_request_ms = ms;
    t.frontend_batch_ms = g.stalls.empty() ? 0 : std::max(0.0, s.alone_ms - ms);
    return t;
  };
  const auto mean_log_ratio = [&](double ms) {
    return mean_log_throughput_ratio(g.intakes, with_request(s.terms(), ms));
  };
  const double request =
      mean_log_ratio(0) <= 0 ? 0.0 : bisect_log_ratio(mean_log_ratio, 0, 200, Trend::kFalling);
  s.request_ms = round_decimals(request, 3);
  s.terms() = with_request(s.terms(), s.request_ms);
  s.fit.log.push_back(round_label(round) + "intake " + fixed(s.terms().frontend_batch_ms, 2) +
                      " ms per batch + " + fixed(s.terms().frontend_request_ms, 3) +
                      " ms per request (throughput, " + std::to_string(g.intakes.size()) +
                      " all-at-once intake cases)");
}

// Which cases the serial front end's terms come from, for the profile's frontend_source.
std::string front_end_source(const CalibrationGroups& g) {
  const auto names_of = [](const std::vector<Calibration>& v) {
    std::string out;
    for (const Calibration& c : v) out += (out.empty() ? "" : "; ") + c.benchmark->name;
    return out;
  };
  if (g.stalls.empty() && g.intakes.empty()) {
    return "no calibration case at c > 1 with an ITL p99: no serial front-end cost";
  }
  if (g.stalls.empty()) {
    return "frontend_request_ms fitted to the output throughput of " + names_of(g.intakes) +
           " (all requests at t = 0, one intake batch); no calibration case at c > 1 "
           "with an ITL p99, so no batch share; frontend_chunk_us 0: not identified "
           "(docs/validation.md)";
  }
  if (g.intakes.empty()) {
    return "frontend_request_ms (one request's intake) fitted to the ITL p99 of " +
           names_of(g.stalls) +
           " (a request taken in stalls the other streams); no all-at-once intake "
           "case, so no batch share; frontend_chunk_us 0: not identified "
           "(docs/validation.md)";
  }
  return "frontend_batch_ms + frontend_request_ms (one request taken in alone) fitted to the ITL "
         "p99 of " +
         names_of(g.stalls) +
         "; frontend_request_ms (per request in a batch) to the output "
         "throughput of " +
         names_of(g.intakes) +
         " (all requests at t = 0, one intake batch); frontend_chunk_us 0: not identified "
         "(docs/validation.md)";
}

}  // namespace

StepTermFit fit_step_terms(const std::vector<BenchmarkCase>& cases,
                           const std::map<std::string, Profile>& profiles,
                           const std::string& tool) {
  const CalibrationGroups g = group_calibration_cases(cases, profiles);
  FitState s;
  FitTerms& t = s.terms();
  t.present = true;
  t.source = "calibrated";
  t.measurements = g.names;
  t.tool = tool;
  t.frontend_engine = front_end_engine(g);
  // Each term moves the others' residuals a little: three rounds of refitting them in turn.
  for (int round = 0; round < 3; ++round) {
    if (!g.closed.empty()) {
      fit_decode_residual(g.closed, round, s);
      if (!g.stalls.empty()) fit_intake_alone(g, round, s);
      fit_frontend_latency(g.closed, round, s);
    }
    if (!g.intakes.empty()) fit_intake_batch_share(g, round, s);
  }
  // No term scales a whole step any more (issue 32): the all-at-once cases without
  // "calibrates": "frontend_request_ms" identify nothing and are reported as such.
  if (!g.all_at_once.empty()) {
    s.fit.log.push_back("no term fitted to " + std::to_string(g.all_at_once.size()) +
                        " all-at-once calibration case(s): the large-chunk scale is gone "
                        "(docs/validation.md, \"large_chunk_scale removed\")");
  }
  // Stored at the calibration's resolution by finish_profile (StoredPrecision); the front end's
  // at 0.01 ms of latency, 1 us of intake and 0.001 us per chunk.
  Profile rounding;
  rounding.step_terms = t;
  round_stored_terms(rounding, StoredPrecision{});
  StepTermFit fit;
  fit.terms = rounding.step_terms;
  fit.terms.notes =
      "fitted by replaying the calibration cases with --drafter none; see docs/validation.md";
  fit.front_end.latency_ms = round_decimals(t.frontend_ms, 2);
  fit.front_end.intake_batch_ms = round_decimals(t.frontend_batch_ms, 3);
  fit.front_end.intake_request_ms = round_decimals(t.frontend_request_ms, 3);
  fit.front_end.chunk_us = round_decimals(t.frontend_chunk_us, 3);
  fit.front_end_source = front_end_source(g);
  fit.front_end_engine = t.frontend_engine;
  fit.log = std::move(s.fit.log);
  return fit;
}

}  // namespace sparksim
