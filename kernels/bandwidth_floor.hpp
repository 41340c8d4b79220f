// The memory-bandwidth floor of one verify forward: the bytes a step must move at least, over the
// device's copy bandwidth. Weights are streamed once per step (every layer, the final norm, the
// LM head) but the embedding table is only gathered: T rows for T tokens, not vocab rows (counting
// the whole table made the benchmark's ratios about 8% too good for qwen3-8b). K/V are read for
// every cached and new position of every request.
#pragma once

#include "kernels/model_shape.hpp"

namespace sparksim::kernels {

// bf16 bytes of the weights streamed by one forward (embedding excluded; when tied, the LM head
// still streams the shared matrix).
double streamed_weight_bytes(const TransformerShape& shape);

// streamed_weight_bytes + the embedding rows of `tokens` tokens + bf16 K/V of `kv_positions`
// positions summed over requests (context plus new tokens).
double verify_floor_bytes(const TransformerShape& shape, long long tokens, long long kv_positions);

}  // namespace sparksim::kernels
