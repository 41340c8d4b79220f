// Global admission search on current confidences (unsafe baseline). The search needs only the
// survivals in descending order (their owners do not change the sums), so they are sorted by
// value; the first `best` candidates of the admission order are then those above the best-th
// survival and, of those equal to it, the first by the order's tie-breaks (admit_first). Walking
// a k-way merge of the rows gave the same lengths at twice the instructions per request-step.
#include "policies/retrospective_policy.hpp"

#include <algorithm>

#include "policies/admission_search.hpp"
#include "policies/survival_sort.hpp"

namespace sparksim {

void RetrospectivePolicy::schedule(const BatchView& view, const SpsTable& sps,
                                   std::span<int> lengths) {
  const auto requests = static_cast<std::size_t>(view.requests);
  const auto gamma = static_cast<std::size_t>(view.gamma);
  // (+4: admit_first may read 3 floats past the last row.)
  survivals_.resize(requests * gamma + 4);
  rows_.resize(requests);
  positive_.resize(requests);
  order_.clear();
  for (std::size_t r = 0; r < requests; ++r) {
    float* row = &survivals_[r * gamma];
    rows_[r] = row;
    positive_[r] = compute_survivals(&view.confidences[r * gamma], view.gamma, row);
    order_.insert(order_.end(), row, row + positive_[r]);
  }
  sort_survivals_descending(order_, scratch_);
  const std::int64_t best = global_search(std::span<const float>(order_), view.requests, sps);
  if (best == 0) {
    std::fill(lengths.begin(), lengths.begin() + view.requests, 0);
    return;
  }
  merge_.admit_first(rows_, view.gamma, view.request_ids.first(requests), best,
                     order_[static_cast<std::size_t>(best - 1)], lengths);
}

}  // namespace sparksim
