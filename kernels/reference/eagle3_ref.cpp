// The EAGLE-3 drafter reference (eagle3_ref.hpp).
#include "kernels/reference/eagle3_ref.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/reference/decoder_layer_ref.hpp"
#include "kernels/reference/ops_ref.hpp"
#include "kernels/weight_draw.hpp"

namespace sparksim::kernels {

namespace {

std::vector<float> draw(std::uint64_t seed, std::uint64_t id, std::size_t n, double center,
                        double half) {
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = random_weight(seed, id, i, center, half);
  return out;
}

// The layer's attention input [attn_norm(Emb token) ; hidden_norm(g)] [2 hidden] -> q, k, v.
LayerQkv pass_qkv(const Eagle3Weights& w, const TargetWeights& t, const double* g, int token,
                  int position) {
  const TransformerShape& s = t.shape;
  std::vector<double> cat(2 * static_cast<std::size_t>(s.hidden));
  for (int i = 0; i < s.hidden; ++i) {
    cat[i] = t.embed[static_cast<std::size_t>(token) * s.hidden + i];
  }
  rms_norm_ref(cat.data(), w.layer.attn_norm.data(), s.hidden, s.rms_eps, cat.data());
  rms_norm_ref(g, w.hidden_norm.data(), s.hidden, s.rms_eps, cat.data() + s.hidden);
  // The decoder layer reference with the QKV projection's input widened to 2h (pre-normed).
  TransformerShape wide = s;
  wide.hidden = 2 * s.hidden;
  return layer_qkv_ref(w.layer, wide, cat.data(), 1, &position, true);
}

void fuse(const Eagle3Weights& w, const TransformerShape& s, const double* states, double* g) {
  matvec_ref(w.fc.data(), states, s.hidden, 3 * s.hidden, g);
}

}  // namespace

void Eagle3Shape::validate(const TransformerShape& target) const {
  if (draft_vocab < 1 || draft_vocab > target.vocab) {
    throw std::invalid_argument("eagle3: draft_vocab must be in 1..target vocab");
  }
  if (target_layer_ids.size() != 3) throw std::invalid_argument("eagle3: needs 3 target layers");
  for (int id : target_layer_ids) {
    if (id < 0 || id >= target.layers) throw std::invalid_argument("eagle3: layer id out of range");
  }
}

Eagle3Shape eagle3_shape(const TransformerShape& target) {
  const int l = target.layers;
  Eagle3Shape out;
  out.target_layer_ids =
      l >= 6 ? std::vector<int>{2, l / 2, l - 3} : std::vector<int>{0, l / 2, l - 1};
  out.draft_vocab = target.vocab > 4 * 32000 ? 32000 : std::max(1, target.vocab / 4);
  return out;
}

std::vector<int> eagle3_d2t(const TransformerShape& target, const Eagle3Shape& shape,
                            std::uint64_t seed) {
  shape.validate(target);
  const int dv = shape.draft_vocab;
  std::vector<int> d2t(static_cast<std::size_t>(dv));
  const std::uint64_t key = weight_draw::tensor_key(seed, kEagle3FirstTensorId + 99);
  for (int i = 0; i < dv; ++i) {
    const long long lo = static_cast<long long>(i) * target.vocab / dv;
    const long long hi = static_cast<long long>(i + 1) * target.vocab / dv;  // > lo
    d2t[i] = static_cast<int>(lo + static_cast<long long>(weight_draw::mix64(key ^ i) %
                                                          static_cast<std::uint64_t>(hi - lo)));
  }
  return d2t;
}

Eagle3Weights make_random_eagle3_weights(const TransformerShape& target, const Eagle3Shape& shape,
                                         std::uint64_t seed, double matrix_std) {
  target.validate();
  shape.validate(target);
  const double half = matrix_std * std::sqrt(3.0);
  const auto h = static_cast<std::size_t>(target.hidden);
  std::uint64_t id = kEagle3FirstTensorId;
  const auto matrix = [&](std::size_t n) { return draw(seed, id++, n, 0.0, half); };
  const auto gain = [&](std::size_t n) { return draw(seed, id++, n, 1.0, 0.1); };
  Eagle3Weights w;
  w.shape = shape;
  w.fc = matrix(h * 3 * h);
  w.hidden_norm = gain(h);
  w.layer.attn_norm = gain(h);
  w.layer.wqkv = matrix(static_cast<std::size_t>(target.qkv_width()) * 2 * h);
  w.layer.q_norm = gain(static_cast<std::size_t>(target.head_dim));
  w.layer.k_norm = gain(static_cast<std::size_t>(target.head_dim));
  w.layer.wo = matrix(h * static_cast<std::size_t>(target.q_width()));
  w.layer.ffn_norm = gain(h);
  w.layer.w_gate_up = matrix(2 * static_cast<std::size_t>(target.ffn) * h);
  w.layer.w_down = matrix(h * static_cast<std::size_t>(target.ffn));
  w.final_norm = gain(h);
  w.lm_head = matrix(static_cast<std::size_t>(shape.draft_vocab) * h);
  w.d2t = eagle3_d2t(target, shape, seed);
  return w;
}

void eagle3_context_update_ref(const Eagle3Weights& w, const TargetWeights& target,
                               const double* target_states, const int* next_tokens, int n,
                               int start, int slot, HostKvCache& cache) {
  const TransformerShape& s = target.shape;
  ar_detail::check_update(s, cache.shape, slot, start, n, next_tokens, "eagle3");
  std::vector<double> g(static_cast<std::size_t>(s.hidden));
  for (int i = 0; i < n; ++i) {
    fuse(w, s, target_states + static_cast<long long>(i) * 3 * s.hidden, g.data());
    const LayerQkv qkv = pass_qkv(w, target, g.data(), next_tokens[i], start + i);
    ar_detail::store_kv(cache, slot, start + i, qkv.k.data(), qkv.v.data());
  }
}

ArDraftResult eagle3_draft_ref(const Eagle3Weights& w, const TargetWeights& target,
                               const HostKvCache& cache, int slot, int context_len,
                               const double* last_states, int anchor, int gamma,
                               const ArDraftOptions& o) {
  const TransformerShape& s = target.shape;
  ArDraftResult out = ar_detail::start_round(s, cache.shape, slot, context_len, o, gamma, anchor,
                                             w.shape.draft_vocab);
  const int h = s.hidden;
  const auto v = static_cast<std::size_t>(s.vocab);
  const auto dv = static_cast<std::size_t>(w.shape.draft_vocab);
  ar_detail::RoundKv kv(s, cache, slot, context_len, gamma);
  std::vector<double> p(dv);
  std::vector<double> fused(static_cast<std::size_t>(h));
  fuse(w, s, last_states, fused.data());
  int token = anchor;
  for (int k = 0; k < gamma; ++k) {
    const double* g = k == 0 ? fused.data() : out.hidden.data() + static_cast<long long>(k - 1) * h;
    const LayerQkv qkv = pass_qkv(w, target, g, token, context_len + k);
    double* x = out.hidden.data() + static_cast<long long>(k) * h;
    std::copy_n(g, h, x);  // the residual stream starts at g
    double* logits = out.logits.data() + k * dv;
    ar_detail::finish_pass(w.layer, s, qkv, kv, x, w.final_norm.data(), w.lm_head.data(),
                           w.shape.draft_vocab, logits);
    const int draft_id = ar_detail::choose_token(logits, w.shape.draft_vocab, o, k, p.data());
    for (std::size_t j = 0; j < dv; ++j) out.p_draft[k * v + w.d2t[j]] = p[j];
    token = w.d2t[draft_id];
    out.tokens.push_back(token);
  }
  return out;
}

}  // namespace sparksim::kernels
