// Replay of a simulated run on a backend: reads the step sequence `sparksim run --write-steps`
// exported (per step and request: decode width and context, or prefill chunk and cached
// prefix), executes every step's verify forward and drafter round, and writes the measured
// times beside the step ids, so the simulator's predicted step times can be compared.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "kernels/calibration/step_backend.hpp"

namespace sparksim::kernels {

struct ReplayStep {
  long long step = 0;
  double predicted_us = 0;  // the simulator's duration of the step
  VerifyBatch verify;
  DraftBatch draft;  // contexts of the decode requests (empty: a prefill-only step)
};

// The header `sparksim run --write-steps` writes (sim/step_export.hpp keeps the same text).
inline constexpr const char* kStepsCsvHeader =
    "step,duration_us,gamma,drafter,kind,request,context,width,commits";

// Throws std::invalid_argument("path:line: what is wrong") on the first bad row; nothing runs.
std::vector<ReplayStep> read_step_sequence(const std::string& path);

struct ReplaySummary {
  int steps = 0;
  double wall_s = 0;
  bool cut_by_time = false;
  double median_noise = 0;
};

// Times each step (verify and draft, median of `repeats` after one warm-up round, repeats
// interleaved over blocks of `interleave_block` steps: time_interleaved) and appends
// "step,verify_tokens,prefill_tokens,decode_requests,verify_us,draft_us,measured_us,noise" rows,
// one block at a time.
// `estimator` picks the statistic of the repeats (the sweep's, so the fit and the replay agree).
ReplaySummary replay_steps(StepBackend& backend, const std::vector<ReplayStep>& steps, int repeats,
                           double time_cap_s, std::ostream& csv, int interleave_block = 16,
                           TimingEstimator estimator = TimingEstimator::kMedian);

}  // namespace sparksim::kernels
