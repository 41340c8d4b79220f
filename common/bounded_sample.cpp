// BoundedSample: exact values up to a budget, then a log-linear histogram (see the header).
#include "common/bounded_sample.hpp"

namespace sparksim {

void BoundedSample::add(double value) {
  histogram_.add(value);
  if (!exact_) return;
  if (values_.size() < limit_) {
    values_.push_back(value);
    return;
  }
  exact_ = false;
  std::vector<double>().swap(values_);  // release the memory, not just the size
}

DistributionSummary BoundedSample::summarize() const {
  return exact_ ? summarize_exact(values_) : histogram_.summarize();
}

}  // namespace sparksim
