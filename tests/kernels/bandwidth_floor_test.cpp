// The verify bandwidth floor's byte count, worked by hand for the tiny shape: the embedding table
// is gathered row by row, never streamed whole (the review's pre-flight defect).
#include "kernels/bandwidth_floor.hpp"

#include <catch2/catch.hpp>

using namespace sparksim::kernels;

TEST_CASE("bandwidth floor: streamed weights, gathered embedding rows, K/V positions") {
  const TransformerShape tiny = tiny_qwen3_shape();  // 2 layers, hidden 64, qkv 256, ffn 96
  // Per layer: norms 64 + 64 + 2*32, wqkv 256*64, wo 64*128, gate_up 2*96*64, down 64*96
  // = 43200 weights; 2 layers + final norm 64 + LM head 128*64 = 94656 weights, 2 bytes each.
  CHECK(streamed_weight_bytes(tiny) == 2.0 * 94656);
  // + 5 embedding rows of 64 + K and V of 100 positions (2 layers x 64 wide), bf16.
  CHECK(verify_floor_bytes(tiny, 5, 100) == 2.0 * 94656 + 2.0 * 5 * 64 + 2.0 * 2 * 2 * 64 * 100);
  // One more token adds one gathered row, not the whole 128-row table.
  CHECK(verify_floor_bytes(tiny, 6, 100) - verify_floor_bytes(tiny, 5, 100) == 2.0 * 64);
}
