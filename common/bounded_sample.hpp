// BoundedSample: a per-request metric sample (TTFT, TPOT, ...) summarised exactly while it is
// small and by a LogHistogram once it outgrows a fixed budget, so that a replay of any length
// holds bounded memory per metric. Up to `exact_limit` values (default 2^20, 8 MiB) percentiles
// are exact (linear interpolation, as summarize_exact); beyond it the exact values are dropped and
// percentiles come from the histogram, within LogHistogram::kRelativeError (0.39%) of the exact
// nearest-rank percentile. The mean is exact either way.
#pragma once

#include <cstddef>
#include <vector>

#include "common/distribution_summary.hpp"

namespace sparksim {

class BoundedSample {
 public:
  static constexpr std::size_t kDefaultExactLimit = std::size_t{1} << 20;

  explicit BoundedSample(std::size_t exact_limit = kDefaultExactLimit) : limit_(exact_limit) {}

  void add(double value);
  DistributionSummary summarize() const;
  // True while every value is kept (percentiles exact).
  bool exact() const { return exact_; }
  // Worst relative error of a reported percentile: 0 while exact.
  double relative_error() const { return exact_ ? 0.0 : LogHistogram::kRelativeError; }

 private:
  std::size_t limit_;
  bool exact_ = true;
  std::vector<double> values_;
  LogHistogram histogram_;  // fed from the first value, so switching loses nothing
};

}  // namespace sparksim
