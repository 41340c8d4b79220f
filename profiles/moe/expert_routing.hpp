// Routed-expert load of one expert-parallel rank: how many distinct experts it must stream for
// T tokens (not one per token: experts are shared between tokens, so the count saturates at the
// experts it holds), and how many (token, expert) hits its hottest rank computes.
#pragma once

#include <cstdint>

namespace sparksim {

// Expected distinct experts touched among `local_experts` of `experts`, when `tokens` tokens each
// pick `top_k` distinct experts uniformly at random (independently per token):
//   local × (1 − (1 − top_k / experts)^tokens).
// 0 tokens -> 0; the result never exceeds local_experts. Uniform routing over-counts distinct
// experts for skewed real routing (docs/moe.md); the step model applies imbalance to hits.
double expected_distinct_experts(std::int64_t tokens, int top_k, int experts, int local_experts);

// (token, expert) pairs on the busiest of `ranks` ranks: imbalance × tokens × top_k / ranks,
// imbalance = max / mean rank load (>= 1).
double hottest_rank_hits(double tokens, int top_k, int ranks, double imbalance);

}  // namespace sparksim
