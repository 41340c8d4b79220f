// Oracle lengths from the hidden outcome.
#include "policies/oracle_policy.hpp"

#include <algorithm>
#include <stdexcept>

namespace sparksim {

void OraclePolicy::schedule(const BatchView& view, const SpsTable& /*sps*/,
                            std::span<int> lengths) {
  if (static_cast<std::int64_t>(view.hidden_accepted.size()) < view.requests) {
    throw std::logic_error(
        "oracle policy needs BatchView::hidden_accepted; its registry row must set "
        "sees_hidden_outcome");
  }
  for (std::int64_t r = 0; r < view.requests; ++r) {
    lengths[r] = std::clamp(view.hidden_accepted[r], 0, view.gamma);
  }
}

}  // namespace sparksim
