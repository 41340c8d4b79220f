// Closed forms for routed-expert load; tests/profiles/expert_routing_test.cpp checks them
// against a Monte Carlo count of sampled top-k routings.
#include "profiles/moe/expert_routing.hpp"

#include <cmath>

namespace sparksim {

double expected_distinct_experts(std::int64_t tokens, int top_k, int experts, int local_experts) {
  if (tokens <= 0) return 0;
  // log1p keeps (1 - k/E)^T accurate when k/E is small and T large.
  const double untouched =
      std::exp(static_cast<double>(tokens) * std::log1p(-static_cast<double>(top_k) / experts));
  return local_experts * (1.0 - untouched);
}

double hottest_rank_hits(double tokens, int top_k, int ranks, double imbalance) {
  return imbalance * tokens * top_k / ranks;
}

}  // namespace sparksim
