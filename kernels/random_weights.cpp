// Counter-based generation of the random target and drafter weights (see random_weights.hpp).
#include "kernels/random_weights.hpp"

#include <cmath>

#include "kernels/bf16.hpp"
#include "kernels/weight_draw.hpp"

namespace sparksim::kernels {

float random_weight(std::uint64_t seed, std::uint64_t tensor_id, std::uint64_t index, double center,
                    double half_width) {
  // The device generator (cuda/device_init.cu) runs the same weight_draw::value.
  return round_to_bf16(static_cast<float>(
      weight_draw::value(weight_draw::tensor_key(seed, tensor_id), index, center, half_width)));
}

namespace {

// Hands out consecutive tensor ids, so that every tensor of a model has its own stream.
class TensorFactory {
 public:
  TensorFactory(std::uint64_t seed, std::uint64_t first_id, double matrix_std)
      : seed_(seed), next_id_(first_id), matrix_half_width_(matrix_std * std::sqrt(3.0)) {}

  std::vector<float> matrix(std::size_t rows, std::size_t cols) {
    return fill(rows * cols, 0.0, matrix_half_width_);
  }
  std::vector<float> gain(std::size_t n) { return fill(n, 1.0, 0.1); }
  std::vector<float> fill(std::size_t n, double center, double half_width) {
    const std::uint64_t id = next_id_++;
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = random_weight(seed_, id, i, center, half_width);
    return out;
  }

 private:
  std::uint64_t seed_;
  std::uint64_t next_id_;
  double matrix_half_width_;
};

LayerWeights make_layer(TensorFactory& f, const TransformerShape& s) {
  const auto h = static_cast<std::size_t>(s.hidden);
  LayerWeights w;
  w.attn_norm = f.gain(h);
  w.wqkv = f.matrix(static_cast<std::size_t>(s.qkv_width()), h);
  w.q_norm = f.gain(static_cast<std::size_t>(s.head_dim));
  w.k_norm = f.gain(static_cast<std::size_t>(s.head_dim));
  w.wo = f.matrix(h, static_cast<std::size_t>(s.q_width()));
  w.ffn_norm = f.gain(h);
  w.w_gate_up = f.matrix(2 * static_cast<std::size_t>(s.ffn), h);
  w.w_down = f.matrix(h, static_cast<std::size_t>(s.ffn));
  return w;
}

}  // namespace

TargetWeights make_random_target_weights(const TransformerShape& shape, std::uint64_t seed,
                                         double matrix_std) {
  shape.validate();
  TensorFactory f(seed, 1000, matrix_std);
  const auto h = static_cast<std::size_t>(shape.hidden);
  const auto v = static_cast<std::size_t>(shape.vocab);
  TargetWeights w;
  w.shape = shape;
  w.embed = f.matrix(v, h);
  for (int l = 0; l < shape.layers; ++l) w.layers.push_back(make_layer(f, shape));
  w.final_norm = f.gain(h);
  w.lm_head = shape.tied_embeddings ? w.embed : f.matrix(v, h);
  return w;
}

DraftWeights make_random_draft_weights(const TransformerShape& target, const DraftShape& draft,
                                       std::uint64_t seed, double matrix_std) {
  target.validate();
  draft.validate(target);
  // Ids from 500000 on: never the target's streams, whatever its layer count.
  TensorFactory f(seed, 500000, matrix_std);
  const auto h = static_cast<std::size_t>(target.hidden);
  const auto v = static_cast<std::size_t>(target.vocab);
  const auto r = static_cast<std::size_t>(draft.markov_rank);
  DraftWeights w;
  w.shape = draft;
  w.fc = f.matrix(h, draft.target_layer_ids.size() * h);
  w.ctx_norm = f.gain(h);
  for (int l = 0; l < draft.layers; ++l) w.layers.push_back(make_layer(f, target));
  w.mask_embedding = f.matrix(1, h);
  w.final_norm = f.gain(h);
  w.markov_w1 = f.matrix(v, r);
  w.markov_w2 = f.matrix(v, r);
  w.confidence_w = f.matrix(1, h + r);
  w.confidence_bias = f.fill(1, 0.0, 0.5)[0];
  // Temperatures in [0.5, 2]: STS rescales each block position's confidence logit differently.
  w.sts_temperature = f.fill(static_cast<std::size_t>(draft.block_size), 1.25, 0.75);
  return w;
}

}  // namespace sparksim::kernels
