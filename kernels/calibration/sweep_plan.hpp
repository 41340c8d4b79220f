// The measurement sweep: a planner over verify shapes (requests × context × verify width, prefill
// chunks, ragged mixes) and drafter shapes (requests × gamma × context), bounded by the backend's
// slots and an explicit time cap, and a runner that appends one CSV row per point as it finishes,
// so a run cut short keeps what it measured. Columns are the time model's features, so the fit
// reads them without knowing the batch.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "kernels/calibration/step_backend.hpp"

namespace sparksim::kernels {

struct SweepGrid {
  std::vector<int> requests = {1, 2, 4, 8};
  std::vector<int> contexts = {32, 128, 320};
  std::vector<int> verify_widths = {1, 2, 4};
  std::vector<int> prefill_chunks = {16, 48};
  std::vector<int> draft_gammas = {2, 4};
  // Drafter families swept over requests x gammas x contexts; mtp1 at gamma 1 only (the
  // simulator's mtp1 drafts one token per step).
  std::vector<DraftFamily> draft_families = {DraftFamily::kDspark, DraftFamily::kDflash,
                                             DraftFamily::kMtp1, DraftFamily::kEagle3};
  int ragged_mixes = 8;  // extra points with random widths and contexts per request
  std::uint64_t seed = 1;
};

struct SweepPoint {
  std::string kind;  // "verify" or a drafter family's name (draft_family_name)
  std::string label;
  VerifyBatch verify;
  DraftBatch draft;
};

// Points that fit the backend's slots (max_requests, max_slot_tokens); deterministic per seed.
std::vector<SweepPoint> plan_sweep(const SweepGrid& grid, int max_requests, int max_slot_tokens);

// The fit's features of one batch, as the simulator counts them (profiles/time_model.hpp).
struct BatchFeatures {
  std::int64_t requests = 0;
  std::int64_t verify_tokens = 0;
  std::int64_t prefill_tokens = 0;
  std::int64_t decode_context_tokens = 0;
  std::int64_t verify_attention_pairs = 0;
  std::int64_t prefill_attention_pairs = 0;
};
BatchFeatures features_of(const VerifyBatch& batch);

struct SweepLimits {
  double time_cap_s = 30;  // stop starting new blocks of points after this much wall time
  int warmup = 1;
  int repeats = 5;
  // Points timed together, their repeats interleaved (time_interleaved); rows are written per
  // block, so a run cut short keeps every finished block.
  int interleave_block = 16;
  TimingEstimator estimator = TimingEstimator::kMedian;  // what the time_us column holds
};

struct SweepSummary {
  int planned = 0;
  int measured = 0;
  double wall_s = 0;
  bool cut_by_time = false;
  double median_noise = 0;  // median over points of (p75 - p25) / median
};

// Header line of the sweep CSV.
const char* sweep_csv_header();
// Runs the points in order, in interleaved blocks, writing the header then one flushed row per
// point as its block finishes.
SweepSummary run_sweep(StepBackend& backend, const std::vector<SweepPoint>& points,
                       const SweepLimits& limits, std::ostream& csv);

}  // namespace sparksim::kernels
