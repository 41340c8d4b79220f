// Exact and histogram-based distribution summaries.
#include "common/distribution_summary.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sparksim {

double sorted_percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const double rank = q / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

DistributionSummary summarize_exact(std::vector<double> values) {
  DistributionSummary s;
  s.count = static_cast<std::int64_t>(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  // Sum in sorted order: the result is independent of the order values arrived in.
  long double sum = 0;
  for (double v : values) sum += v;
  s.mean = static_cast<double>(sum / static_cast<long double>(values.size()));
  s.p10 = sorted_percentile(values, 10);
  s.p50 = sorted_percentile(values, 50);
  s.p90 = sorted_percentile(values, 90);
  s.p99 = sorted_percentile(values, 99);
  return s;
}

LogHistogram::LogHistogram(double relative_error)
    : epsilon_(relative_error), log_base_(std::log1p(2.0 * relative_error)) {}

void LogHistogram::add(double value, std::int64_t weight) {
  count_ += weight;
  sum_ += static_cast<long double>(value) * weight;
  if (!(value > 0.0)) {
    zero_count_ += weight;
    return;
  }
  const long index = std::lround(std::floor(std::log(value) / log_base_)) + kOffset;
  const auto i = static_cast<std::size_t>(std::max(0L, index));
  if (i >= buckets_.size()) buckets_.resize(i + 1, 0);
  buckets_[i] += weight;
}

double LogHistogram::percentile(double q) const {
  // Nearest rank over the weighted sample.
  const auto target = static_cast<std::int64_t>(
      std::ceil(q / 100.0 * static_cast<double>(count_)));
  std::int64_t seen = zero_count_;
  if (target <= seen) return 0.0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= target) {
      const double lo = static_cast<double>(static_cast<long>(i) - kOffset);
      return std::exp((lo + 0.5) * log_base_);
    }
  }
  return 0.0;
}

DistributionSummary LogHistogram::summarize() const {
  DistributionSummary s;
  s.count = count_;
  if (count_ == 0) return s;
  s.mean = static_cast<double>(sum_ / static_cast<long double>(count_));
  s.p10 = percentile(10);
  s.p50 = percentile(50);
  s.p90 = percentile(90);
  s.p99 = percentile(99);
  return s;
}

}  // namespace sparksim
