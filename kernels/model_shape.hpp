// Shapes of the dense Qwen3 verify targets and of the DSpark-family drafters that the kernels run.
// The kernels library reads no JSON (it must build on the GPU machine from CUDA alone), so the
// three Qwen3 targets are a table here; tests/kernels/model_shape_test.cpp checks it against
// profiles/model_shapes.json. The tiny shapes keep CPU references fast in tests.
#pragma once

#include <string>
#include <vector>

namespace sparksim::kernels {

// One dense Qwen3-style decoder stack (GQA attention with q/k RMSNorm, SwiGLU MLP).
struct TransformerShape {
  std::string name;
  int layers = 0;
  int hidden = 0;
  int q_heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int ffn = 0;
  int vocab = 0;
  double rope_theta = 1e6;
  double rms_eps = 1e-6;
  bool tied_embeddings = false;

  int q_width() const { return q_heads * head_dim; }
  int kv_width() const { return kv_heads * head_dim; }
  int qkv_width() const { return q_width() + 2 * kv_width(); }
  // Throws std::invalid_argument naming the first inconsistent field (heads not dividing, head_dim
  // odd or above 256, anything non-positive).
  void validate() const;
};

// qwen3-4b, qwen3-8b or qwen3-14b; throws std::invalid_argument listing the valid names.
TransformerShape qwen3_shape(const std::string& name);
const std::vector<std::string>& qwen3_shape_names();

// 2 layers, hidden 64, 4 query heads over 2 KV heads of 32, ffn 96, vocab 128: every code path of
// the real shapes (GQA grouping, q/k norm, RoPE pairs) at a size a double-precision loop runs in
// milliseconds.
TransformerShape tiny_qwen3_shape();

// A DSpark-family drafter attached to a target: `layers` decoder layers of the target's width,
// a block of `block_size` positions (anchor + block_size - 1 mask tokens), the Markov head of rank
// `markov_rank`, and the target layers whose hidden states feed the draft context.
struct DraftShape {
  int layers = 0;
  int block_size = 0;
  int markov_rank = 0;
  std::vector<int> target_layer_ids;
  void validate(const TransformerShape& target) const;
};

// The published DSpark configuration for a Qwen3 target (5 layers, block 7, rank 256).
DraftShape dspark_shape(const std::string& target_name);
// Tiny drafter for the tiny target: 2 layers, block 4, rank 8, target layers {0, 1}.
DraftShape tiny_dspark_shape();

}  // namespace sparksim::kernels
