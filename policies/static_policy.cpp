// Static verification length: the same ℓ for every request, every step.
#include "policies/static_policy.hpp"

#include <algorithm>

namespace sparksim {

void StaticPolicy::schedule(const BatchView& view, const SpsTable& /*sps*/,
                            std::span<int> lengths) {
  std::fill(lengths.begin(), lengths.begin() + view.requests, k_);
}

}  // namespace sparksim
