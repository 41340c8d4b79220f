// Global admission search on current confidences (unsafe baseline).
#include "policies/retrospective_policy.hpp"

#include <algorithm>

#include "policies/admission_search.hpp"

namespace sparksim {

void RetrospectivePolicy::schedule(const BatchView& view, const SpsTable& sps,
                                   std::span<int> lengths) {
  const auto requests = static_cast<std::size_t>(view.requests);
  const auto gamma = static_cast<std::size_t>(view.gamma);
  survivals_.resize(requests * gamma);
  rows_.resize(requests);
  positive_.resize(requests);
  for (std::size_t r = 0; r < requests; ++r) {
    rows_[r] = &survivals_[r * gamma];
    positive_[r] =
        compute_survivals(&view.confidences[r * gamma], view.gamma, &survivals_[r * gamma]);
  }
  merge_.reset(rows_, positive_, view.request_ids.first(requests));
  path_.clear();
  const std::int64_t best = global_search(merge_, view.requests, sps, &path_);
  std::fill(lengths.begin(), lengths.begin() + view.requests, 0);
  // A request's candidates appear in position order along the path: counting them gives ℓ_r.
  for (std::int64_t m = 0; m < best; ++m) ++lengths[path_[m]];
}

}  // namespace sparksim
