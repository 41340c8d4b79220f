// Algorithm 1: greedy admission by survival with the early-stopping break.
#include "policies/greedy_policy.hpp"

#include "policies/admission_search.hpp"

namespace sparksim {

void GreedyPolicy::schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) {
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
  early_stop_search(merge_, view.requests, sps, lengths);
}

}  // namespace sparksim
