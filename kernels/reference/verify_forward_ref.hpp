// CPU reference of the target's verify forward over a flattened ragged batch: every request's new
// tokens attend causally to the request's own KV cache plus the new tokens up to themselves; their
// K/V are appended to the cache. Double accumulation throughout; the cache stores floats.
#pragma once

#include <vector>

#include "kernels/ragged_batch.hpp"
#include "kernels/random_weights.hpp"

namespace sparksim::kernels {

// Hidden states of chosen layers (the DSpark context's input): output of decoder layer id
// (0-based, after its MLP residual), per token, concatenated in layer_ids order.
struct ForwardCapture {
  std::vector<int> layer_ids;
  std::vector<double> states;  // [T x layer_ids.size() * hidden], filled by the forward
};

// Returns the logits [T x vocab]. The batch is validated against the cache and vocabulary first
// (std::invalid_argument); the cache must have the target's layer count, kv_heads and head_dim.
std::vector<double> verify_forward_ref(const TargetWeights& w, const RaggedBatch& batch,
                                       HostKvCache& cache, ForwardCapture* capture = nullptr);

}  // namespace sparksim::kernels
