// The Qwen3 and DSpark shape tables (copied from profiles/model_shapes.json, checked by a test).
#include "kernels/model_shape.hpp"

#include <stdexcept>

namespace sparksim::kernels {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

}  // namespace

void TransformerShape::validate() const {
  require(layers > 0 && hidden > 0 && q_heads > 0 && kv_heads > 0 && head_dim > 0 && ffn > 0 &&
              vocab > 0,
          name + ": every size must be positive");
  require(q_heads % kv_heads == 0, name + ": q_heads must be a multiple of kv_heads");
  // RoPE rotates pairs (i, i + head_dim/2); the attention kernel keeps <= 8 dims per lane.
  require(head_dim % 2 == 0 && head_dim <= 256, name + ": head_dim must be even and <= 256");
  require(rope_theta > 0 && rms_eps > 0, name + ": rope_theta and rms_eps must be positive");
}

const std::vector<std::string>& qwen3_shape_names() {
  static const std::vector<std::string> names = {"qwen3-4b", "qwen3-8b", "qwen3-14b"};
  return names;
}

TransformerShape qwen3_shape(const std::string& name) {
  // Public Hugging Face config.json values (profiles/model_shapes.json); rms_norm_eps is 1e-6.
  if (name == "qwen3-4b") return {name, 36, 2560, 32, 8, 128, 9728, 151936, 1e6, 1e-6, true};
  if (name == "qwen3-8b") return {name, 36, 4096, 32, 8, 128, 12288, 151936, 1e6, 1e-6, false};
  if (name == "qwen3-14b") return {name, 40, 5120, 40, 8, 128, 17408, 151936, 1e6, 1e-6, false};
  throw std::invalid_argument("unknown target '" + name +
                              "'; valid: qwen3-4b, qwen3-8b, qwen3-14b");
}

TransformerShape tiny_qwen3_shape() {
  // A small RoPE base so that positions below 100 rotate every pair noticeably.
  return {"tiny", 2, 64, 4, 2, 32, 96, 128, 1e4, 1e-6, false};
}

void DraftShape::validate(const TransformerShape& target) const {
  require(layers > 0 && block_size >= 2 && markov_rank > 0,
          "draft: layers, markov_rank must be positive and block_size >= 2");
  require(!target_layer_ids.empty(), "draft: needs at least one target layer id");
  for (int id : target_layer_ids) {
    require(id >= 0 && id < target.layers, "draft: target layer id out of range");
  }
}

DraftShape dspark_shape(const std::string& target_name) {
  if (target_name == "qwen3-4b" || target_name == "qwen3-8b") {
    return {5, 7, 256, {1, 9, 17, 25, 33}};
  }
  if (target_name == "qwen3-14b") return {5, 7, 256, {1, 10, 19, 28, 37}};
  throw std::invalid_argument("no DSpark shape for target '" + target_name +
                              "'; valid: qwen3-4b, qwen3-8b, qwen3-14b");
}

DraftShape tiny_dspark_shape() {
  return {2, 4, 8, {0, 1}};
}

}  // namespace sparksim::kernels
