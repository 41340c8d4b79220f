// The fitting stages (see the header). Replays are deterministic, so the fit is too.
#include "experiments/validate/step_term_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/input_error.hpp"
#include "experiments/validate/benchmark_replay.hpp"
#include "profiles/profile_finishing.hpp"

namespace sparksim {

namespace {

struct Calibration {
  const BenchmarkCase* benchmark;
  const Profile* profile;
};

SimulatedMetrics replay_with(const Calibration& c, const StepTerms& terms) {
  Profile p = *c.profile;
  p.step_terms = terms;
  return replay_case(*c.benchmark, p);
}

std::string fixed(double x, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, x);
  return b;
}

}  // namespace

StepTermFit fit_step_terms(const std::vector<BenchmarkCase>& cases,
                           const std::map<std::string, Profile>& profiles,
                           const std::string& tool) {
  std::vector<Calibration> closed, all_at_once, stalls, intakes;
  std::string names;
  for (const BenchmarkCase& c : cases) {
    if (c.role != CaseRole::kCalibration) continue;
    const auto it = profiles.find(c.target);
    if (it == profiles.end()) throw InputError(c.origin + ": no profile for target " + c.target);
    names += (names.empty() ? "" : "; ") + c.name;
    if (c.workload.max_concurrency > 0 && c.measured.itl_ms.median) {
      closed.push_back({&c, &it->second});
      if (c.workload.max_concurrency > 1 && c.measured.itl_ms.p99) {
        stalls.push_back({&c, &it->second});
      }
    } else if (c.workload.max_concurrency == 0 && c.measured.output_throughput) {
      (c.calibrates == "frontend_request_ms" ? intakes : all_at_once).push_back({&c, &it->second});
      if (c.calibrates == "frontend_request_ms" && std::isfinite(c.workload.request_rate)) {
        throw InputError(c.origin +
                         ": \"calibrates\": \"frontend_request_ms\" needs every request sent "
                         "at once (request_rate inf, no max_concurrency): its intake is one batch");
      }
    }
    if (c.calibrates == "frontend_request_ms" &&
        (c.workload.max_concurrency > 0 || !c.measured.output_throughput)) {
      throw InputError(c.origin +
                       ": \"calibrates\": \"frontend_request_ms\" needs an all-at-once case "
                       "(no max_concurrency) with a measured output throughput");
    }
  }
  if (closed.empty() && all_at_once.empty() && intakes.empty()) {
    throw InputError(
        "validate --calibrate-out: no usable calibration case (closed-loop cases with a median "
        "ITL, or all-at-once cases with an output throughput, marked \"role\": \"calibration\")");
  }
  StepTermFit fit;
  StepTerms& t = fit.terms;
  t.present = true;
  t.source = "calibrated";
  t.measurements = names;
  t.tool = tool;
  const Profile& any = !closed.empty()        ? *closed.front().profile
                       : !all_at_once.empty() ? *all_at_once.front().profile
                                              : *intakes.front().profile;
  t.large_chunk_tokens = any.verify.graph_buckets.empty() ? 512 : any.verify.graph_buckets.back();

  std::vector<Calibration> front_end = stalls;
  front_end.insert(front_end.end(), intakes.begin(), intakes.end());
  for (const Calibration& c : front_end) {
    const std::string name =
        c.benchmark->engine_version.substr(0, c.benchmark->engine_version.find(' '));
    if (t.frontend_engine.empty()) {
      t.frontend_engine = name;
    } else if (t.frontend_engine != name) {
      throw InputError(c.benchmark->origin +
                       ": the serial front end is fitted to one server's "
                       "cases; its calibration cases name both " +
                       t.frontend_engine + " and " + name);
    }
  }
  double alone_ms = 0;    // one request's intake, batch + request (ITL p99 at c > 1)
  double request_ms = 0;  // the per-request share (all-at-once intake cases)
  for (int round = 0; round < 3; ++round) {
    if (!closed.empty()) {
      // Residual median ITL against concurrency, with the decode terms taken out again.
      StepTerms base = t;
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
      fit.log.push_back("round " + std::to_string(round + 1) + ": decode residual " +
                        fixed(t.per_step_us, 1) + " us + " + fixed(t.per_sequence_us, 2) +
                        " us x concurrency (" + std::to_string(closed.size()) + " cases)");
      // Serial front end: a request taken in while others stream holds their next chunk back,
      // which is what the measured ITL p99 shows at c > 1 (tens of ms against a ~8 ms step). That
      // identifies one request's intake alone, batch + request; the per-request share comes from
      // the intake cases below (without one, it is all per request: FIFO, one intake each).
      if (!stalls.empty()) {
        const auto with_alone = [&](StepTerms s, double alone_ms) {
          s.frontend_batch_ms = intakes.empty() ? 0 : std::max(0.0, alone_ms - request_ms);
          s.frontend_request_ms = intakes.empty() ? alone_ms : request_ms;
          return s;
        };
        const auto mean_log_ratio = [&](double alone_ms) {
          const StepTerms s = with_alone(t, alone_ms);
          double sum = 0;
          for (const Calibration& c : stalls) {
            sum += std::log(replay_with(c, s).itl_ms.p99.value_or(0) /
                            *c.benchmark->measured.itl_ms.p99);
          }
          return sum / static_cast<double>(stalls.size());
        };
        double lo = 0, hi = 200;
        if (mean_log_ratio(lo) >= 0) {
          hi = 0;
        } else {
          for (int i = 0; i < 24; ++i) {
            const double mid = 0.5 * (lo + hi);
            (mean_log_ratio(mid) > 0 ? hi : lo) = mid;
          }
        }
        alone_ms = round_decimals(0.5 * (lo + hi), 2);
        t = with_alone(t, alone_ms);
        fit.log.push_back("round " + std::to_string(round + 1) + ": serial front end " +
                          fixed(alone_ms, 2) + " ms per request taken in alone (ITL p99, " +
                          std::to_string(stalls.size()) + " cases at c > 1)");
      }
      // Frontend: what TTFT still lacks once the steps are right.
      StepTerms no_frontend = t;
      no_frontend.frontend_ms = 0;
      double gap = 0;
      std::int64_t used = 0;
      for (const Calibration& c : closed) {
        if (!c.benchmark->measured.ttft_ms.mean) continue;
        gap += *c.benchmark->measured.ttft_ms.mean -
               replay_with(c, no_frontend).ttft_ms.mean.value_or(0);
        ++used;
      }
      t.frontend_ms = used > 0 ? std::max(0.0, gap / static_cast<double>(used)) : 0;
      fit.log.push_back("round " + std::to_string(round + 1) + ": frontend " +
                        fixed(t.frontend_ms, 2) + " ms per request (mean TTFT residual)");
    }
    if (!intakes.empty()) {
      // All requests at t = 0: one intake batch of N, released at batch + N x request, after which
      // the engine runs; throughput falls as the per-request cost grows. The one-request intake
      // (batch + request) stays what the ITL p99 fitted, unless no stall case measured it.
      const auto with_request = [&](StepTerms s, double ms) {
        s.frontend_request_ms = ms;
        s.frontend_batch_ms = stalls.empty() ? 0 : std::max(0.0, alone_ms - ms);
        return s;
      };
      const auto mean_log_ratio = [&](double ms) {
        const StepTerms s = with_request(t, ms);
        double sum = 0;
        for (const Calibration& c : intakes) {
          sum += std::log(replay_with(c, s).output_throughput /
                          *c.benchmark->measured.output_throughput);
        }
        return sum / static_cast<double>(intakes.size());
      };
      double lo = 0, hi = 200;
      if (mean_log_ratio(lo) <= 0) {
        hi = 0;
      } else {
        for (int i = 0; i < 24; ++i) {
          const double mid = 0.5 * (lo + hi);
          (mean_log_ratio(mid) > 0 ? lo : hi) = mid;
        }
      }
      request_ms = round_decimals(0.5 * (lo + hi), 3);
      t = with_request(t, request_ms);
      fit.log.push_back("round " + std::to_string(round + 1) + ": intake " +
                        fixed(t.frontend_batch_ms, 2) + " ms per batch + " +
                        fixed(t.frontend_request_ms, 3) + " ms per request (throughput, " +
                        std::to_string(intakes.size()) + " all-at-once intake cases)");
    }
    if (!all_at_once.empty()) {
      // Throughput falls as the scale grows: bisect the mean log ratio to zero.
      const auto mean_log_ratio = [&](double scale) {
        StepTerms s = t;
        s.large_chunk_scale = scale;
        double sum = 0;
        for (const Calibration& c : all_at_once) {
          sum += std::log(replay_with(c, s).output_throughput /
                          *c.benchmark->measured.output_throughput);
        }
        return sum / static_cast<double>(all_at_once.size());
      };
      double lo = 0.2, hi = 8.0;  // the profile format bounds the scale at 10
      for (int i = 0; i < 24; ++i) {
        const double mid = 0.5 * (lo + hi);
        (mean_log_ratio(mid) > 0 ? lo : hi) = mid;
      }
      t.large_chunk_scale = round_decimals(0.5 * (lo + hi), 4);
      fit.log.push_back("round " + std::to_string(round + 1) + ": large-chunk scale " +
                        fixed(t.large_chunk_scale, 4) + " past " +
                        std::to_string(t.large_chunk_tokens) + " tokens (" +
                        std::to_string(all_at_once.size()) + " all-at-once cases)");
    }
  }
  // Stored at the calibration's resolution by finish_profile (StoredPrecision).
  Profile rounding;
  rounding.step_terms = t;
  round_stored_terms(rounding, StoredPrecision{});
  t = rounding.step_terms;
  const auto names_of = [](const std::vector<Calibration>& v) {
    std::string out;
    for (const Calibration& c : v) out += (out.empty() ? "" : "; ") + c.benchmark->name;
    return out;
  };
  if (stalls.empty() && intakes.empty()) {
    t.frontend_source = "no calibration case at c > 1 with an ITL p99: no serial front-end cost";
  } else if (stalls.empty()) {
    t.frontend_source = "frontend_request_ms fitted to the output throughput of " +
                        names_of(intakes) +
                        " (all requests at t = 0, one intake batch); no calibration case at c > 1 "
                        "with an ITL p99, so no batch share; frontend_chunk_us 0: not identified "
                        "(docs/validation.md)";
  } else if (intakes.empty()) {
    t.frontend_source = "frontend_request_ms (one request's intake) fitted to the ITL p99 of " +
                        names_of(stalls) +
                        " (a request taken in stalls the other streams); no all-at-once intake "
                        "case, so no batch share; frontend_chunk_us 0: not identified "
                        "(docs/validation.md)";
  } else {
    t.frontend_source =
        "frontend_batch_ms + frontend_request_ms (one request taken in alone) fitted to the ITL "
        "p99 of " +
        names_of(stalls) +
        "; frontend_request_ms (per request in a batch) to the output "
        "throughput of " +
        names_of(intakes) +
        " (all requests at t = 0, one intake batch); frontend_chunk_us 0: not identified "
        "(docs/validation.md)";
  }
  t.notes = "fitted by replaying the calibration cases with --drafter none; see docs/validation.md";
  return fit;
}

}  // namespace sparksim
