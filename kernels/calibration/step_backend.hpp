// The one interface the calibration pipeline measures through: a backend executes a verify
// forward over a ragged batch (decode widths and prefill chunks at given contexts) or one drafter
// round, and reports one sample in microseconds. The CPU references are one backend
// (cpu_step_backend.hpp), the CUDA kernels the other (cuda_step_backend.hpp). The sweep, the
// replay and the robust timer know nothing else about the device.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kernels/ragged_batch.hpp"

namespace sparksim::kernels {

// One request's share of a verify forward: `width` new tokens at positions context..context +
// width - 1 (a decode request verifies 1 + ℓ tokens; a prefill chunk is `width` prompt tokens
// after `context` already prefilled ones).
struct BatchSegment {
  int context = 0;
  int width = 1;
  bool prefill = false;
};

struct VerifyBatch {
  std::vector<BatchSegment> segments;
  int total_tokens() const;
};

// The batch as the kernels take it: request r in slot r, token ids a fixed function of the
// position (contents do not change the time); prefill flags beside it (verify_rows.hpp).
RaggedBatch ragged_batch_of(const VerifyBatch& batch, int vocab);
std::vector<bool> prefill_flags_of(const VerifyBatch& batch);

// The drafter a round runs: DSpark (parallel block, Markov head and confidence), dflash (the same
// block without them), MTP-1 and EAGLE-3 (one layer run autoregressively, one pass per token;
// mtp1_ref.hpp, eagle3_ref.hpp). Names as the simulator's drafter families spell them.
enum class DraftFamily { kDspark, kDflash, kMtp1, kEagle3 };
const char* draft_family_name(DraftFamily family);
// "dspark", "dflash", "mtp1" or "eagle3"; throws std::invalid_argument naming the valid ones.
DraftFamily parse_draft_family(const std::string& name);

// One drafter round: every request drafts gamma tokens after `contexts[r]` cached positions of
// the drafter's own context (for MTP-1 and EAGLE-3 the passes sit at contexts[r]..+gamma-1).
struct DraftBatch {
  int gamma = 1;
  DraftFamily family = DraftFamily::kDspark;
  std::vector<int> contexts;
};

class StepBackend {
 public:
  // The largest batch the backend's buffers hold: max_requests slots (>= 1) of max_slot_tokens
  // (>= 2) each; std::invalid_argument otherwise.
  StepBackend(int max_requests, int max_slot_tokens);
  virtual ~StepBackend() = default;
  int max_requests() const { return max_requests_; }
  int max_slot_tokens() const { return max_slot_tokens_; }
  // The device in words, e.g. "cpu: AMD EPYC 7B13 (reference loops, 1 thread)".
  virtual std::string device() const = 0;
  // One sample each, in microseconds. Throw std::invalid_argument for a batch beyond capacity.
  virtual double verify_us(const VerifyBatch& batch) = 0;
  virtual double draft_us(const DraftBatch& batch) = 0;
  // The memory the sweep planner budgets: the target's weights in bytes as the backend stores
  // them, and its K/V bytes per cached token.
  virtual double weights_bytes() const = 0;
  virtual double kv_bytes_per_token() const = 0;

 protected:
  // std::invalid_argument where the batch has more requests than the slots, or a draft context
  // plus gamma overflows a slot.
  void check_capacity(const VerifyBatch& batch) const;
  void check_capacity(const DraftBatch& batch) const;

 private:
  int max_requests_;
  int max_slot_tokens_;
};

// Robust statistics of repeated samples: the median resists the scheduler's outliers on a shared
// CPU; noise is the interquartile range over the median.
struct RobustTiming {
  double median_us = 0;
  double lower_half_us = 0;  // mean of the fastest ceil(n / 2) samples
  double noise = 0;          // (p75 - p25) / median
  int samples = 0;
};

// Which statistic of the repeats a sweep or replay reports. The median resists outliers on
// both sides; the lower-half mean (a trimmed mean keeping the fastest half) assumes interference
// only ever adds time (another tenant's time slice, evicted caches), as on a shared CPU, and then
// estimates the undisturbed cost with less spread than the median of few samples.
enum class TimingEstimator { kMedian, kLowerHalf };
// "median" or "lower-half"; throws std::invalid_argument otherwise.
TimingEstimator parse_timing_estimator(const std::string& name);
const char* timing_estimator_name(TimingEstimator e);
double estimate_us(const RobustTiming& t, TimingEstimator e);

// `warmup` discarded samples, then `repeats` kept ones (repeats >= 1).
RobustTiming time_robustly(const std::function<double()>& sample_us, int warmup, int repeats);

// The same for several items, interleaved: `warmup` rounds discarded, then `repeats` rounds, each
// taking one sample of every item in order. On a shared machine a slow spell (another tenant's
// burst, a frequency change) then lands on one sample of every item instead of on every sample
// of the few items timed during it, and the medians absorb it. Result i is item i's.
std::vector<RobustTiming> time_interleaved(const std::vector<std::function<double()>>& samplers,
                                           int warmup, int repeats);

}  // namespace sparksim::kernels
