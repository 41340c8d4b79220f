// CUDA-graph buckets and padding (see the header).
#include "profiles/graph_padding.hpp"

#include <algorithm>

namespace sparksim {

std::vector<std::int64_t> vllm_graph_buckets(std::int64_t max_bucket) {
  std::vector<std::int64_t> buckets;
  for (std::int64_t b : {1, 2, 4}) {
    if (b <= max_bucket) buckets.push_back(b);
  }
  for (std::int64_t b = 8; b <= max_bucket; b += 8) buckets.push_back(b);
  return buckets;
}

std::int64_t pad_to_graph_bucket(const std::vector<std::int64_t>& buckets, std::int64_t tokens) {
  if (buckets.empty() || tokens > buckets.back()) return tokens;  // eager execution: no padding
  return *std::lower_bound(buckets.begin(), buckets.end(), tokens);
}

}  // namespace sparksim
