// Exact and histogram-based distribution summaries.
#include "common/distribution_summary.hpp"

#include <algorithm>
#include <bit>
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

namespace {
constexpr int kMantissaShift = LogHistogram::kMantissaShift;

double bucket_midpoint(std::int64_t index) {
  const double lo = std::bit_cast<double>(static_cast<std::uint64_t>(index) << kMantissaShift);
  const double hi = std::bit_cast<double>(static_cast<std::uint64_t>(index + 1) << kMantissaShift);
  return 0.5 * (lo + hi);
}
}  // namespace

void LogHistogram::add_outside(double value, std::int64_t weight) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    zero_count_ += weight;
    return;
  }
  const std::int64_t index = bucket_of(value);
  if (buckets_.empty()) {
    first_index_ = index;
    buckets_.assign(1, 0);
  } else if (index < first_index_) {
    buckets_.insert(buckets_.begin(), static_cast<std::size_t>(first_index_ - index), 0);
    first_index_ = index;
  } else if (index - first_index_ >= static_cast<std::int64_t>(buckets_.size())) {
    buckets_.resize(static_cast<std::size_t>(index - first_index_ + 1), 0);
  }
  buckets_[static_cast<std::size_t>(index - first_index_)] += weight;
}

void LogHistogram::merge(const LogHistogram& other) {
  count_ += other.count_;
  sum_ += other.sum_;
  zero_count_ += other.zero_count_;
  if (other.buckets_.empty()) return;
  const std::int64_t other_last =
      other.first_index_ + static_cast<std::int64_t>(other.buckets_.size()) - 1;
  if (buckets_.empty()) {
    first_index_ = other.first_index_;
    buckets_.assign(other.buckets_.size(), 0);
  }
  if (other.first_index_ < first_index_) {
    buckets_.insert(buckets_.begin(), static_cast<std::size_t>(first_index_ - other.first_index_),
                    0);
    first_index_ = other.first_index_;
  }
  if (other_last - first_index_ >= static_cast<std::int64_t>(buckets_.size())) {
    buckets_.resize(static_cast<std::size_t>(other_last - first_index_ + 1), 0);
  }
  for (std::size_t i = 0; i < other.buckets_.size(); ++i) {
    buckets_[static_cast<std::size_t>(other.first_index_ - first_index_) + i] += other.buckets_[i];
  }
}

double LogHistogram::percentile(double q) const {
  // Nearest rank over the weighted sample.
  const auto target =
      std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(q / 100.0 * count_)));
  std::int64_t seen = zero_count_;
  if (target <= seen) return 0.0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= target) return bucket_midpoint(first_index_ + static_cast<std::int64_t>(i));
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
