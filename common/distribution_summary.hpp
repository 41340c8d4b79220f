// Summaries of a sample: mean and the percentiles every report uses (p10, p50, p90, p99).
// Exact percentiles use linear interpolation between closest ranks (numpy's default, and what
// vLLM's serving benchmark reports). LogHistogram is the bounded-memory alternative for samples
// too numerous to keep (one per token or step), with a stated relative error.
#pragma once

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

// Log-spaced histogram of positive values: bucket i holds [b^i, b^(i+1)) with b = 1 + 2ε; a
// percentile is reported as its bucket's geometric midpoint, so it is within relative error ε of a
// value lying in the same bucket as the exact (nearest-rank) percentile. The mean is exact.
// Values <= 0 go to a separate zero bucket.
class LogHistogram {
 public:
  explicit LogHistogram(double relative_error = 0.005);
  void add(double value, std::int64_t weight = 1);
  DistributionSummary summarize() const;
  double relative_error() const { return epsilon_; }

 private:
  double percentile(double q) const;
  double epsilon_;
  double log_base_;
  std::vector<std::int64_t> buckets_;  // index = floor(log(value) / log_base) + offset
  std::int64_t zero_count_ = 0;
  std::int64_t count_ = 0;
  long double sum_ = 0;
  static constexpr int kOffset = 8000;  // covers values down to about 1e-17 at ε = 0.005
};

}  // namespace sparksim
