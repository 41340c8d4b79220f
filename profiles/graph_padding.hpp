// CUDA-graph padding, one rule for the time model, the producers and the composers: an engine
// replays a graph captured at the next bucket up, so a batch of B tokens pays for the bucket's.
#pragma once

#include <cstdint>
#include <vector>

namespace sparksim {

// vLLM's default CUDA-graph capture sizes up to max_bucket: 1, 2, 4, then multiples of 8
// (max_bucket 0: none, eager execution).
std::vector<std::int64_t> vllm_graph_buckets(std::int64_t max_bucket);

// `tokens` padded up to the next bucket while it is <= the largest; above it (or without
// buckets) the engine runs eagerly and pays the tokens themselves.
std::int64_t pad_to_graph_bucket(const std::vector<std::int64_t>& buckets, std::int64_t tokens);

}  // namespace sparksim
