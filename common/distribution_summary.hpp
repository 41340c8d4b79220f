// Summaries of a sample: mean and the percentiles every report uses (p10, p50, p90, p99).
// Exact percentiles use linear interpolation between closest ranks (numpy's default, and what
// vLLM's serving benchmark reports). LogHistogram is the bounded-memory alternative for samples
// too numerous to keep (one per token or step), with a stated relative error.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace sparksim {

struct DistributionSummary {
  std::int64_t count = 0;
  double mean = 0, p10 = 0, p50 = 0, p90 = 0, p99 = 0;  // all 0 when count == 0
};

// Percentile q ∈ [0, 100] of an ascending-sorted sample, linear interpolation between ranks.
double sorted_percentile(const std::vector<double>& sorted, double q);

// Sorts a copy and summarises it exactly.
DistributionSummary summarize_exact(std::vector<double> values);

// Log-linear histogram of positive values (the HDR-histogram layout): a value's bucket is its
// binary exponent plus the top kMantissaBits bits of its mantissa, so bucketing is a few bit
// operations, not a log(). A bucket spans a relative width of 2^-kMantissaBits; percentiles are
// reported as the bucket's midpoint, within relative error 2^-(kMantissaBits+1) (0.39%) of the
// exact nearest-rank percentile. The mean is exact. Values <= 0 are counted in a zero bucket.
class LogHistogram {
 public:
  static constexpr int kMantissaBits = 7;
  static constexpr int kMantissaShift = 52 - kMantissaBits;  // a double's bits >> this: bucket
  static constexpr double kRelativeError = 1.0 / (2 << kMantissaBits);

  // Inline, as it runs once or twice per simulated step: a positive value inside the buckets so
  // far is counted here; anything else (a new bucket, zero, negative, NaN, infinity) out of line.
  void add(double value, std::int64_t weight = 1) {
    count_ += weight;
    sum_ += static_cast<long double>(value) * weight;
    const auto offset = static_cast<std::uint64_t>(bucket_of(value) - first_index_);
    if (value > 0.0 && offset < buckets_.size()) {
      buckets_[offset] += weight;
      return;
    }
    add_outside(value, weight);
  }
  // Adds every sample of `other` (the histogram of the union of both samples).
  void merge(const LogHistogram& other);
  DistributionSummary summarize() const;
  double relative_error() const { return kRelativeError; }

 private:
  // The bucket of a positive value: its exponent and top mantissa bits. (+Infinity lands one past
  // the largest finite value's bucket, so never inside the range counted inline.)
  static std::int64_t bucket_of(double value) {
    return static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(value) >> kMantissaShift);
  }
  // add() for a value outside the buckets so far: count and sum already taken.
  void add_outside(double value, std::int64_t weight);
  double percentile(double q) const;
  std::vector<std::int64_t> buckets_;  // bucket index - first_index_
  std::int64_t first_index_ = 0;
  std::int64_t zero_count_ = 0;
  std::int64_t count_ = 0;
  long double sum_ = 0;
};

}  // namespace sparksim
