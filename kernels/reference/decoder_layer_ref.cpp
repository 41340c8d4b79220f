// Plain-loop double-precision decoder layer halves (decoder_layer_ref.hpp).
#include "kernels/reference/decoder_layer_ref.hpp"

#include "kernels/reference/ops_ref.hpp"

namespace sparksim::kernels {

LayerQkv layer_qkv_ref(const LayerWeights& w, const TransformerShape& s, const double* x,
                       int tokens, const int* positions, bool pre_normed) {
  const int h = s.hidden;
  const int hd = s.head_dim;
  LayerQkv out;
  out.q.resize(static_cast<std::size_t>(tokens) * s.q_width());
  out.k.resize(static_cast<std::size_t>(tokens) * s.kv_width());
  out.v.resize(out.k.size());
  std::vector<double> normed(static_cast<std::size_t>(h));
  std::vector<double> qkv(static_cast<std::size_t>(s.qkv_width()));
  for (int t = 0; t < tokens; ++t) {
    const double* xt = x + static_cast<long long>(t) * h;
    if (pre_normed) {
      normed.assign(xt, xt + h);
    } else {
      rms_norm_ref(xt, w.attn_norm.data(), h, s.rms_eps, normed.data());
    }
    matvec_ref(w.wqkv.data(), normed.data(), s.qkv_width(), h, qkv.data());
    qk_norm_rope_ref(qkv.data(), w.q_norm.data(), w.k_norm.data(), s.q_heads, s.kv_heads, hd,
                     positions[t], s.rms_eps, s.rope_theta);
    double* q = out.q.data() + static_cast<long long>(t) * s.q_width();
    double* k = out.k.data() + static_cast<long long>(t) * s.kv_width();
    double* v = out.v.data() + static_cast<long long>(t) * s.kv_width();
    for (int i = 0; i < s.q_width(); ++i) q[i] = qkv[i];
    for (int i = 0; i < s.kv_width(); ++i) {
      k[i] = qkv[s.q_width() + i];
      v[i] = qkv[s.q_width() + s.kv_width() + i];
    }
  }
  return out;
}

void layer_output_ref(const LayerWeights& w, const TransformerShape& s, const double* attn,
                      int tokens, double* x) {
  const int h = s.hidden;
  std::vector<double> o(static_cast<std::size_t>(h));
  std::vector<double> normed(static_cast<std::size_t>(h));
  std::vector<double> gate_up(2 * static_cast<std::size_t>(s.ffn));
  std::vector<double> act(static_cast<std::size_t>(s.ffn));
  for (int t = 0; t < tokens; ++t) {
    double* xt = x + static_cast<long long>(t) * h;
    matvec_ref(w.wo.data(), attn + static_cast<long long>(t) * s.q_width(), h, s.q_width(),
               o.data());
    for (int i = 0; i < h; ++i) xt[i] += o[i];
    rms_norm_ref(xt, w.ffn_norm.data(), h, s.rms_eps, normed.data());
    matvec_ref(w.w_gate_up.data(), normed.data(), 2 * s.ffn, h, gate_up.data());
    swiglu_ref(gate_up.data(), gate_up.data() + s.ffn, s.ffn, act.data());
    matvec_ref(w.w_down.data(), act.data(), h, s.ffn, o.data());
    for (int i = 0; i < h; ++i) xt[i] += o[i];
  }
}

}  // namespace sparksim::kernels
