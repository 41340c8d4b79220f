// Byte counts of the verify forward's bandwidth floor (bf16 weights and KV cache).
#include "kernels/bandwidth_floor.hpp"

namespace sparksim::kernels {

namespace {
constexpr double kBf16Bytes = 2.0;
}

double streamed_weight_bytes(const TransformerShape& s) {
  const double h = s.hidden;
  const double per_layer = h                                         // attn_norm
                           + static_cast<double>(s.qkv_width()) * h  // wqkv
                           + 2.0 * s.head_dim                        // q_norm, k_norm
                           + h * s.q_width()                         // wo
                           + h                                       // ffn_norm
                           + 2.0 * s.ffn * h                         // w_gate_up
                           + h * s.ffn;                              // w_down
  return kBf16Bytes *
         (s.layers * per_layer + h /* final_norm */ + static_cast<double>(s.vocab) * h);
}

double verify_floor_bytes(const TransformerShape& s, long long tokens, long long kv_positions) {
  const double embedding_rows = kBf16Bytes * static_cast<double>(tokens) * s.hidden;
  const double kv = kBf16Bytes * 2.0 * s.layers * s.kv_width() * static_cast<double>(kv_positions);
  return streamed_weight_bytes(s) + embedding_rows + kv;
}

}  // namespace sparksim::kernels
