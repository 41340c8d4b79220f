// The Qwen3 and DSpark shapes: the rows of profiles/model_shapes.json, compiled in by
// cmake/model_shapes.cmake (kernels/ builds without a JSON library), plus the tiny test shapes.
#include "kernels/model_shape.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/model_shapes_table.hpp"  // generated from profiles/model_shapes.json

namespace sparksim::kernels {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

// Qwen3's config.json gives rms_norm_eps 1e-6 for every size; the shapes file does not repeat it.
constexpr double kQwen3RmsEps = 1e-6;

const generated::Qwen3ShapeRow* find_row(const std::string& name) {
  for (const auto& row : generated::qwen3_shape_rows()) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

std::string valid_names() {
  std::string all;
  for (const auto& n : qwen3_shape_names()) all += (all.empty() ? "" : ", ") + n;
  return all;
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
  // Smallest model first (by width), the order people list them in.
  static const std::vector<std::string> names = [] {
    auto rows = generated::qwen3_shape_rows();
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.hidden < b.hidden; });
    std::vector<std::string> out;
    for (const auto& row : rows) out.emplace_back(row.name);
    return out;
  }();
  return names;
}

TransformerShape qwen3_shape(const std::string& name) {
  const generated::Qwen3ShapeRow* row = find_row(name);
  if (row == nullptr) {
    throw std::invalid_argument("unknown target '" + name + "'; valid: " + valid_names());
  }
  return {name,     row->layers, row->hidden,     row->q_heads, row->kv_heads,       row->head_dim,
          row->ffn, row->vocab,  row->rope_theta, kQwen3RmsEps, row->tied_embeddings};
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
  const generated::Qwen3ShapeRow* row = find_row(target_name);
  if (row == nullptr) {
    throw std::invalid_argument("no DSpark shape for target '" + target_name +
                                "'; valid: " + valid_names());
  }
  return {generated::kDsparkLayers, generated::kDsparkBlockSize, generated::kDsparkMarkovRank,
          row->dspark_target_layer_ids};
}

DraftShape tiny_dspark_shape() {
  return {2, 4, 8, {0, 1}};
}

}  // namespace sparksim::kernels
