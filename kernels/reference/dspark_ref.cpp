// The DSpark / dflash drafter reference (dspark_ref.hpp).
#include "kernels/reference/dspark_ref.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "kernels/reference/decoder_layer_ref.hpp"
#include "kernels/reference/ops_ref.hpp"
#include "kernels/reference/rejection_ref.hpp"

namespace sparksim::kernels {

namespace {

void check_cache(const DraftWeights& w, const TransformerShape& t, const KvCacheShape& cs, int slot,
                 int end) {
  if (cs.layers != w.shape.layers || cs.kv_heads != t.kv_heads || cs.head_dim != t.head_dim) {
    throw std::invalid_argument("draft: cache shape does not match the drafter");
  }
  if (slot < 0 || slot >= cs.slots || end > cs.max_tokens) {
    throw std::invalid_argument("draft: slot out of range or context overflows its capacity");
  }
}

}  // namespace

void dspark_context_update_ref(const DraftWeights& w, const TransformerShape& target,
                               const double* states, int n, int start, int slot,
                               HostKvCache& draft_cache) {
  const KvCacheShape& cs = draft_cache.shape;
  check_cache(w, target, cs, slot, start + n);
  const int h = target.hidden;
  const auto ids = static_cast<int>(w.shape.target_layer_ids.size());
  std::vector<double> ctx(static_cast<std::size_t>(n) * h);
  for (int t = 0; t < n; ++t) {
    double* row = ctx.data() + static_cast<long long>(t) * h;
    matvec_ref(w.fc.data(), states + static_cast<long long>(t) * ids * h, h, ids * h, row);
    rms_norm_ref(row, w.ctx_norm.data(), h, target.rms_eps, row);
  }
  std::vector<int> pos(static_cast<std::size_t>(n));
  std::iota(pos.begin(), pos.end(), start);
  for (int l = 0; l < w.shape.layers; ++l) {
    const LayerQkv qkv = layer_qkv_ref(w.layers[l], target, ctx.data(), n, pos.data(), true);
    for (int t = 0; t < n; ++t) {
      const long long off = cs.offset(l, slot, start + t);
      for (int i = 0; i < target.kv_width(); ++i) {
        draft_cache.k[off + i] =
            static_cast<float>(qkv.k[static_cast<long long>(t) * target.kv_width() + i]);
        draft_cache.v[off + i] =
            static_cast<float>(qkv.v[static_cast<long long>(t) * target.kv_width() + i]);
      }
    }
  }
}

DraftResult dspark_draft_ref(const DraftWeights& w, const TargetWeights& target,
                             const HostKvCache& draft_cache, int slot, int context_len, int anchor,
                             const DraftOptions& o) {
  const TransformerShape& s = target.shape;
  const KvCacheShape& cs = draft_cache.shape;
  const int gamma = w.shape.block_size;
  check_cache(w, s, cs, slot, context_len);
  if (anchor < 0 || anchor >= s.vocab) throw std::invalid_argument("draft: anchor out of range");
  if (o.temperature > 0 && static_cast<int>(o.uniforms.size()) != gamma) {
    throw std::invalid_argument("draft: sampling needs one uniform per block position");
  }
  const int h = s.hidden;
  const int hd = s.head_dim;
  const int kvw = s.kv_width();
  const int group = s.q_heads / s.kv_heads;
  const int span = context_len + gamma;

  std::vector<double> x(static_cast<std::size_t>(gamma) * h);
  std::copy_n(target.embed.begin() + static_cast<long long>(anchor) * h, h, x.begin());
  for (int k = 1; k < gamma; ++k) {
    std::copy(w.mask_embedding.begin(), w.mask_embedding.end(), x.begin() + k * h);
  }
  std::vector<int> pos(static_cast<std::size_t>(gamma));
  std::iota(pos.begin(), pos.end(), context_len);
  std::vector<float> keys(static_cast<std::size_t>(span) * kvw);
  std::vector<float> values(keys.size());
  std::vector<double> attn(static_cast<std::size_t>(gamma) * s.q_width());
  for (int l = 0; l < w.shape.layers; ++l) {
    const LayerQkv qkv = layer_qkv_ref(w.layers[l], s, x.data(), gamma, pos.data());
    // [draft context | block], the block's own K/V not kept after this forward.
    const long long base = cs.offset(l, slot, 0);
    std::copy_n(draft_cache.k.begin() + base, static_cast<long long>(context_len) * kvw,
                keys.begin());
    std::copy_n(draft_cache.v.begin() + base, static_cast<long long>(context_len) * kvw,
                values.begin());
    for (std::size_t i = 0; i < qkv.k.size(); ++i) {
      keys[static_cast<std::size_t>(context_len) * kvw + i] = static_cast<float>(qkv.k[i]);
      values[static_cast<std::size_t>(context_len) * kvw + i] = static_cast<float>(qkv.v[i]);
    }
    for (int t = 0; t < gamma; ++t) {
      for (int head = 0; head < s.q_heads; ++head) {
        const long long kv_off = static_cast<long long>(head / group) * hd;
        attention_ref(qkv.q.data() + static_cast<long long>(t) * s.q_width() + head * hd,
                      keys.data() + kv_off, values.data() + kv_off, span, kvw, hd,
                      attn.data() + static_cast<long long>(t) * s.q_width() + head * hd);
      }
    }
    layer_output_ref(w.layers[l], s, attn.data(), gamma, x.data());
  }

  DraftResult out;
  const auto v = static_cast<std::size_t>(s.vocab);
  out.base_logits.resize(gamma * v);
  std::vector<double> hidden(static_cast<std::size_t>(gamma) * h);
  for (int k = 0; k < gamma; ++k) {
    rms_norm_ref(x.data() + k * h, w.final_norm.data(), h, s.rms_eps, hidden.data() + k * h);
    matvec_ref(target.lm_head.data(), hidden.data() + k * h, s.vocab, h,
               out.base_logits.data() + k * v);
  }

  const int rank = w.shape.markov_rank;
  std::vector<double> logits(v);
  std::vector<double> w1_prev(static_cast<std::size_t>(rank));
  out.p_draft.resize(gamma * v);
  int prev = anchor;
  for (int k = 0; k < gamma; ++k) {
    std::copy_n(out.base_logits.begin() + k * v, v, logits.begin());
    if (o.markov_and_confidence) {
      for (int i = 0; i < rank; ++i)
        w1_prev[i] = w.markov_w1[static_cast<std::size_t>(prev) * rank + i];
      std::vector<double> bias(v);
      matvec_ref(w.markov_w2.data(), w1_prev.data(), s.vocab, rank, bias.data());
      for (std::size_t j = 0; j < v; ++j) logits[j] += bias[j];
      double z = w.confidence_bias;
      for (int i = 0; i < h; ++i)
        z += w.confidence_w[i] * hidden[static_cast<std::size_t>(k) * h + i];
      for (int i = 0; i < rank; ++i) z += w.confidence_w[h + i] * w1_prev[i];
      out.confidence.push_back(1.0 / (1.0 + std::exp(-z / w.sts_temperature[k])));
    }
    double* p = out.p_draft.data() + k * v;
    if (o.temperature > 0) {
      softmax_ref(logits.data(), s.vocab, o.temperature, p);
      prev = sample_inverse_cdf_ref(p, s.vocab, o.uniforms[k]);
    } else {
      softmax_ref(logits.data(), s.vocab, 1.0, p);
      prev = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    }
    out.tokens.push_back(prev);
  }
  return out;
}

}  // namespace sparksim::kernels
