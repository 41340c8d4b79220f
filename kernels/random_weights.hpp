// Seeded random weights of realistic scale for the verify target and the DSpark drafter. No
// trained weights can be downloaded, and timing does not need them; correctness tests need only
// that the CPU reference and the GPU see the same numbers. Every value is a pure function of
// (seed, tensor id, index), already rounded to bf16, so host and device generation agree.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/model_shape.hpp"

namespace sparksim::kernels {

// One decoder layer. Matrices are row-major [out x in], as nn.Linear stores them.
struct LayerWeights {
  std::vector<float> attn_norm;  // [hidden]
  std::vector<float> wqkv;       // [q_width + 2 kv_width, hidden]: q rows, then k, then v
  std::vector<float> q_norm;     // [head_dim], shared by all query heads
  std::vector<float> k_norm;     // [head_dim]
  std::vector<float> wo;         // [hidden, q_width]
  std::vector<float> ffn_norm;   // [hidden]
  std::vector<float> w_gate_up;  // [2 ffn, hidden]: gate rows, then up rows
  std::vector<float> w_down;     // [hidden, ffn]
};

struct TargetWeights {
  TransformerShape shape;
  std::vector<float> embed;  // [vocab, hidden]
  std::vector<LayerWeights> layers;
  std::vector<float> final_norm;  // [hidden]
  std::vector<float> lm_head;     // [vocab, hidden]; a copy of embed when tied
};

// DSpark drafter weights (dflash uses the same backbone and ignores the two heads). The embedding
// and LM head are the target's (frozen, shared).
struct DraftWeights {
  DraftShape shape;
  std::vector<float> fc;        // [hidden, ids * hidden]: projects concatenated target states
  std::vector<float> ctx_norm;  // [hidden]
  std::vector<LayerWeights> layers;
  std::vector<float> mask_embedding;  // [hidden]: input of the block's gamma - 1 mask positions
  std::vector<float> final_norm;      // [hidden]
  std::vector<float> markov_w1;       // [vocab, rank]: Embedding(vocab, rank)
  std::vector<float> markov_w2;       // [vocab, rank]: Linear(rank -> vocab), row-major
  std::vector<float> confidence_w;    // [hidden + rank]
  float confidence_bias = 0.0f;
  std::vector<float> sts_temperature;  // [block_size]: per-position temperature of the confidence
};

// Scale (HF initializer_range of Qwen3 is 0.02): matrices uniform with standard deviation
// `matrix_std`; norm gains 1 +- 0.1 so that a kernel ignoring its gain fails the comparison.
// Tests pass a larger matrix_std to sharpen attention and logits on tiny shapes.
TargetWeights make_random_target_weights(const TransformerShape& shape, std::uint64_t seed,
                                         double matrix_std = 0.02);
DraftWeights make_random_draft_weights(const TransformerShape& target, const DraftShape& draft,
                                       std::uint64_t seed, double matrix_std = 0.02);

// The generator itself, exposed so device-side initialisation can reproduce it: value `index` of
// the tensor with id `tensor_id`, uniform on [center - half_width, center + half_width), rounded
// to bf16.
float random_weight(std::uint64_t seed, std::uint64_t tensor_id, std::uint64_t index, double center,
                    double half_width);

}  // namespace sparksim::kernels
