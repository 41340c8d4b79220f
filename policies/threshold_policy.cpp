// Confidence threshold: the longest prefix whose raw confidences (or survivals) all reach t.
#include "policies/threshold_policy.hpp"

namespace sparksim {

void ThresholdPolicy::schedule(const BatchView& view, const SpsTable& /*sps*/,
                               std::span<int> lengths) {
  const int gamma = view.gamma;
  for (std::int64_t r = 0; r < view.requests; ++r) {
    const float* c = view.confidences.data() + r * gamma;
    int ell = 0;
    if (mode_ == Mode::kRaw) {
      // `!(c >= t)` also cuts at a NaN confidence.
      while (ell < gamma && c[ell] >= threshold_) ++ell;
    } else {
      double survival = 1.0;
      while (ell < gamma) {
        survival *= c[ell];
        if (!(survival >= threshold_)) break;
        ++ell;
      }
    }
    lengths[r] = ell;
  }
}

}  // namespace sparksim
