// Robust repeat timing and the batch helpers of the backend interface.
#include "kernels/calibration/step_backend.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace sparksim::kernels {

int VerifyBatch::total_tokens() const {
  int total = 0;
  for (const BatchSegment& s : segments) total += s.width;
  return total;
}

RaggedBatch ragged_batch_of(const VerifyBatch& batch, int vocab) {
  RaggedBatch ragged;
  ragged.cu_seqlens.push_back(0);
  for (std::size_t r = 0; r < batch.segments.size(); ++r) {
    const BatchSegment& s = batch.segments[r];
    for (int t = 0; t < s.width; ++t) ragged.tokens.push_back((s.context + t) * 7919 % vocab);
    ragged.cu_seqlens.push_back(static_cast<int>(ragged.tokens.size()));
    ragged.context_lens.push_back(s.context);
    ragged.slots.push_back(static_cast<int>(r));
  }
  return ragged;
}

const char* draft_family_name(DraftFamily family) {
  switch (family) {
    case DraftFamily::kDspark:
      return "dspark";
    case DraftFamily::kDflash:
      return "dflash";
    case DraftFamily::kMtp1:
      return "mtp1";
    case DraftFamily::kEagle3:
      return "eagle3";
  }
  return "?";
}

DraftFamily parse_draft_family(const std::string& name) {
  for (DraftFamily f :
       {DraftFamily::kDspark, DraftFamily::kDflash, DraftFamily::kMtp1, DraftFamily::kEagle3}) {
    if (name == draft_family_name(f)) return f;
  }
  throw std::invalid_argument("drafter \"" + name + "\": dspark, dflash, mtp1 or eagle3");
}

StepBackend::StepBackend(int max_requests, int max_slot_tokens)
    : max_requests_(max_requests), max_slot_tokens_(max_slot_tokens) {
  if (max_requests < 1 || max_slot_tokens < 2) {
    throw std::invalid_argument("step backend: needs >= 1 slot of >= 2 tokens");
  }
}

void StepBackend::check_capacity(const VerifyBatch& batch) const {
  if (static_cast<int>(batch.segments.size()) > max_requests_) {
    throw std::invalid_argument("verify batch has more requests than the backend's slots");
  }
}

void StepBackend::check_capacity(const DraftBatch& batch) const {
  if (static_cast<int>(batch.contexts.size()) > max_requests_) {
    throw std::invalid_argument("draft batch has more requests than the backend's slots");
  }
  for (int c : batch.contexts) {
    if (c < 0 || c + batch.gamma > max_slot_tokens_) {
      throw std::invalid_argument("draft context " + std::to_string(c) + " + gamma overflows a " +
                                  std::to_string(max_slot_tokens_) + "-token slot");
    }
  }
}

std::vector<bool> prefill_flags_of(const VerifyBatch& batch) {
  std::vector<bool> flags;
  for (const BatchSegment& s : batch.segments) flags.push_back(s.prefill);
  return flags;
}

namespace {

// Linear interpolation between order statistics (the common "type 7" quantile).
double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(at);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (at - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

RobustTiming summarise(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  RobustTiming t;
  t.samples = static_cast<int>(samples.size());
  t.median_us = quantile(samples, 0.5);
  const std::size_t half = (samples.size() + 1) / 2;
  double fast = 0;
  for (std::size_t i = 0; i < half; ++i) fast += samples[i];
  t.lower_half_us = fast / static_cast<double>(half);
  t.noise = t.median_us > 0 ? (quantile(samples, 0.75) - quantile(samples, 0.25)) / t.median_us : 0;
  return t;
}

}  // namespace

TimingEstimator parse_timing_estimator(const std::string& name) {
  if (name == "median") return TimingEstimator::kMedian;
  if (name == "lower-half") return TimingEstimator::kLowerHalf;
  throw std::invalid_argument("estimator \"" + name + "\": median or lower-half");
}

const char* timing_estimator_name(TimingEstimator e) {
  return e == TimingEstimator::kMedian ? "median" : "lower-half";
}

double estimate_us(const RobustTiming& t, TimingEstimator e) {
  return e == TimingEstimator::kMedian ? t.median_us : t.lower_half_us;
}

RobustTiming time_robustly(const std::function<double()>& sample_us, int warmup, int repeats) {
  if (warmup < 0 || repeats < 1) throw std::invalid_argument("time_robustly: repeats must be >= 1");
  for (int i = 0; i < warmup; ++i) sample_us();
  std::vector<double> samples(static_cast<std::size_t>(repeats));
  for (double& s : samples) s = sample_us();
  return summarise(std::move(samples));
}

std::vector<RobustTiming> time_interleaved(const std::vector<std::function<double()>>& samplers,
                                           int warmup, int repeats) {
  if (warmup < 0 || repeats < 1) {
    throw std::invalid_argument("time_interleaved: repeats must be >= 1");
  }
  for (int round = 0; round < warmup; ++round) {
    for (const auto& sample : samplers) sample();
  }
  std::vector<std::vector<double>> samples(samplers.size());
  for (int round = 0; round < repeats; ++round) {
    for (std::size_t i = 0; i < samplers.size(); ++i) samples[i].push_back(samplers[i]());
  }
  std::vector<RobustTiming> out;
  for (std::vector<double>& s : samples) out.push_back(summarise(std::move(s)));
  return out;
}

}  // namespace sparksim::kernels
