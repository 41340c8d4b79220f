// Fits a profile's step terms (profiles/profile.hpp StepTerms) to the calibration cases of a
// validation set, by replaying them:
//   per_step_us + per_sequence_us * c = measured - simulated median ITL, least squares over the
//     closed-loop cases at concurrency c (one decode request per user, so c is the decode batch);
//   one request's intake alone, frontend_batch_ms + frontend_request_ms (the serial front end's
//     busy time): bisection so the closed-loop cases at c > 1 match their measured ITL p99 (a
//     request taken in holds back the chunks of the requests streaming meanwhile);
//   frontend_request_ms, the per-request share of an intake batch: bisection so the all-at-once
//     cases marked "calibrates": "frontend_request_ms" match their output throughput (N requests
//     at t = 0 are one batch, batch + N x request; the rest is frontend_batch_ms). Without such
//     a case the whole intake is per request (frontend_batch_ms 0: FIFO, one intake each);
//   frontend_ms = mean over the closed-loop cases of measured - simulated mean TTFT (the latency
//     that occupies no server);
// No term scales a whole step: the large-chunk scale (fitted on one case) is gone, so the other
// all-at-once calibration cases fit nothing (docs/validation.md says what they show).
// The terms are refitted in turn (three rounds), since each moves the others' residuals a little.
// One set of terms serves every target in the set: they are engine costs (sampling over the same
// vocabulary, the scheduler's per-step gap), not kernel costs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "experiments/validate/benchmark_case.hpp"
#include "profiles/profile.hpp"
#include "sim/front_end_costs.hpp"

namespace sparksim {

// The step terms go into the profiles; the front end is the engine's (the preset table,
// sim/engine_preset.cpp, ships it: the fit reports it, a person copies it there).
struct StepTermFit {
  StepTerms terms;
  FrontEndCosts front_end;
  std::string front_end_source;  // which cases fitted which front-end term
  std::string front_end_engine;  // the server software they were fitted on ("vLLM"; "" = none)
  std::vector<std::string> log;  // one line per fitting stage, for the report
};

// `profiles` maps each calibration case's target to its profile (any step terms are replaced).
// Throws InputError when the set has no calibration case the fit can use.
StepTermFit fit_step_terms(const std::vector<BenchmarkCase>& cases,
                           const std::map<std::string, Profile>& profiles, const std::string& tool);

}  // namespace sparksim
