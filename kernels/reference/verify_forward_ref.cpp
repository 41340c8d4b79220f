// The verify forward reference (verify_forward_ref.hpp), layer by layer over the whole batch.
#include "kernels/reference/verify_forward_ref.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/reference/decoder_layer_ref.hpp"
#include "kernels/reference/ops_ref.hpp"

namespace sparksim::kernels {

std::vector<double> verify_forward_ref(const TargetWeights& w, const RaggedBatch& batch,
                                       HostKvCache& cache, ForwardCapture* capture) {
  const TransformerShape& s = w.shape;
  const KvCacheShape& cs = cache.shape;
  if (cs.layers != s.layers || cs.kv_heads != s.kv_heads || cs.head_dim != s.head_dim) {
    throw std::invalid_argument("verify forward: KV cache shape does not match the model");
  }
  batch.validate(cs, s.vocab);
  const int tokens = batch.total_tokens();
  const int h = s.hidden;
  const int hd = s.head_dim;
  const int group = s.q_heads / s.kv_heads;
  const std::vector<int> pos = batch.positions();
  const std::vector<int> req = batch.request_of_token();

  std::vector<double> x(static_cast<std::size_t>(tokens) * h);
  for (int t = 0; t < tokens; ++t) {
    const float* row = w.embed.data() + static_cast<long long>(batch.tokens[t]) * h;
    std::copy(row, row + h, x.begin() + static_cast<long long>(t) * h);
  }
  if (capture != nullptr) {
    capture->states.assign(static_cast<std::size_t>(tokens) * capture->layer_ids.size() * h, 0.0);
  }

  std::vector<double> attn(static_cast<std::size_t>(tokens) * s.q_width());
  for (int l = 0; l < s.layers; ++l) {
    const LayerWeights& lw = w.layers[l];
    const LayerQkv qkv = layer_qkv_ref(lw, s, x.data(), tokens, pos.data());
    // Append every new token's K/V before any attention: a token sees the new tokens before it.
    for (int t = 0; t < tokens; ++t) {
      const long long off = cs.offset(l, batch.slots[req[t]], pos[t]);
      for (int i = 0; i < s.kv_width(); ++i) {
        cache.k[off + i] = static_cast<float>(qkv.k[static_cast<long long>(t) * s.kv_width() + i]);
        cache.v[off + i] = static_cast<float>(qkv.v[static_cast<long long>(t) * s.kv_width() + i]);
      }
    }
    for (int t = 0; t < tokens; ++t) {
      const long long base = cs.offset(l, batch.slots[req[t]], 0);
      for (int head = 0; head < s.q_heads; ++head) {
        const long long kv_off = base + static_cast<long long>(head / group) * hd;
        attention_ref(qkv.q.data() + static_cast<long long>(t) * s.q_width() + head * hd,
                      cache.k.data() + kv_off, cache.v.data() + kv_off, pos[t] + 1, s.kv_width(),
                      hd, attn.data() + static_cast<long long>(t) * s.q_width() + head * hd);
      }
    }
    layer_output_ref(lw, s, attn.data(), tokens, x.data());
    if (capture != nullptr) {
      const auto n = static_cast<int>(capture->layer_ids.size());
      for (int c = 0; c < n; ++c) {
        if (capture->layer_ids[c] != l) continue;
        for (int t = 0; t < tokens; ++t) {
          std::copy(x.begin() + static_cast<long long>(t) * h,
                    x.begin() + static_cast<long long>(t + 1) * h,
                    capture->states.begin() + (static_cast<long long>(t) * n + c) * h);
        }
      }
    }
  }

  std::vector<double> logits(static_cast<std::size_t>(tokens) * s.vocab);
  std::vector<double> normed(static_cast<std::size_t>(h));
  for (int t = 0; t < tokens; ++t) {
    rms_norm_ref(x.data() + static_cast<long long>(t) * h, w.final_norm.data(), h, s.rms_eps,
                 normed.data());
    matvec_ref(w.lm_head.data(), normed.data(), s.vocab, h,
               logits.data() + static_cast<long long>(t) * s.vocab);
  }
  return logits;
}

}  // namespace sparksim::kernels
