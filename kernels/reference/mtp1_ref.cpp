// The MTP-1 drafter reference (mtp1_ref.hpp).
#include "kernels/reference/mtp1_ref.hpp"

#include <cmath>
#include <stdexcept>

#include "kernels/reference/decoder_layer_ref.hpp"
#include "kernels/reference/ops_ref.hpp"

namespace sparksim::kernels {

namespace {

// Consecutive tensor ids from `first`, matrices and gains as random_weights.cpp draws them.
struct Draw {
  std::uint64_t seed;
  std::uint64_t id;
  double half;
  std::vector<float> fill(std::size_t n, double center, double half_width) {
    const std::uint64_t tensor = id++;
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = random_weight(seed, tensor, i, center, half_width);
    return out;
  }
  std::vector<float> matrix(std::size_t rows, std::size_t cols) {
    return fill(rows * cols, 0, half);
  }
  std::vector<float> gain(std::size_t n) { return fill(n, 1.0, 0.1); }
};

// x = eh_proj [enorm(Emb token) ; hnorm(h)], the decoder layer's input.
void pass_input(const Mtp1Weights& w, const TargetWeights& t, const double* h, int token,
                double* x) {
  const int hidden = t.shape.hidden;
  std::vector<double> cat(2 * static_cast<std::size_t>(hidden));
  for (int i = 0; i < hidden; ++i) {
    cat[i] = t.embed[static_cast<std::size_t>(token) * hidden + i];
  }
  rms_norm_ref(cat.data(), w.enorm.data(), hidden, t.shape.rms_eps, cat.data());
  rms_norm_ref(h, w.hnorm.data(), hidden, t.shape.rms_eps, cat.data() + hidden);
  matvec_ref(w.eh_proj.data(), cat.data(), hidden, 2 * hidden, x);
}

}  // namespace

Mtp1Weights make_random_mtp1_weights(const TransformerShape& target, std::uint64_t seed,
                                     double matrix_std) {
  target.validate();
  Draw f{seed, kMtp1FirstTensorId, matrix_std * std::sqrt(3.0)};
  const auto h = static_cast<std::size_t>(target.hidden);
  Mtp1Weights w;
  w.enorm = f.gain(h);
  w.hnorm = f.gain(h);
  w.eh_proj = f.matrix(h, 2 * h);
  w.layer.attn_norm = f.gain(h);
  w.layer.wqkv = f.matrix(static_cast<std::size_t>(target.qkv_width()), h);
  w.layer.q_norm = f.gain(static_cast<std::size_t>(target.head_dim));
  w.layer.k_norm = f.gain(static_cast<std::size_t>(target.head_dim));
  w.layer.wo = f.matrix(h, static_cast<std::size_t>(target.q_width()));
  w.layer.ffn_norm = f.gain(h);
  w.layer.w_gate_up = f.matrix(2 * static_cast<std::size_t>(target.ffn), h);
  w.layer.w_down = f.matrix(h, static_cast<std::size_t>(target.ffn));
  w.head_norm = f.gain(h);
  return w;
}

void mtp1_context_update_ref(const Mtp1Weights& w, const TargetWeights& target,
                             const double* target_states, const int* next_tokens, int n, int start,
                             int slot, HostKvCache& cache) {
  const TransformerShape& s = target.shape;
  ar_detail::check_update(s, cache.shape, slot, start, n, next_tokens, "mtp1");
  std::vector<double> x(static_cast<std::size_t>(s.hidden));
  for (int i = 0; i < n; ++i) {
    pass_input(w, target, target_states + static_cast<long long>(i) * s.hidden, next_tokens[i],
               x.data());
    const int position = start + i;
    const LayerQkv qkv = layer_qkv_ref(w.layer, s, x.data(), 1, &position);
    ar_detail::store_kv(cache, slot, position, qkv.k.data(), qkv.v.data());
  }
}

ArDraftResult mtp1_draft_ref(const Mtp1Weights& w, const TargetWeights& target,
                             const HostKvCache& cache, int slot, int context_len,
                             const double* last_state, int anchor, int gamma,
                             const ArDraftOptions& o) {
  const TransformerShape& s = target.shape;
  ArDraftResult out =
      ar_detail::start_round(s, cache.shape, slot, context_len, o, gamma, anchor, s.vocab);
  const int h = s.hidden;
  const auto v = static_cast<std::size_t>(s.vocab);
  ar_detail::RoundKv kv(s, cache, slot, context_len, gamma);
  int token = anchor;
  for (int k = 0; k < gamma; ++k) {
    const double* h_in =
        k == 0 ? last_state : out.hidden.data() + static_cast<long long>(k - 1) * h;
    double* x = out.hidden.data() + static_cast<long long>(k) * h;
    pass_input(w, target, h_in, token, x);
    const int position = context_len + k;
    const LayerQkv qkv = layer_qkv_ref(w.layer, s, x, 1, &position);
    double* logits = out.logits.data() + k * v;
    ar_detail::finish_pass(w.layer, s, qkv, kv, x, w.head_norm.data(), target.lm_head.data(),
                           s.vocab, logits);
    token = ar_detail::choose_token(logits, s.vocab, o, k, out.p_draft.data() + k * v);
    out.tokens.push_back(token);
  }
  return out;
}

}  // namespace sparksim::kernels
