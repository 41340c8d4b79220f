// The shared pieces of the autoregressive drafter references (ar_drafter_ref.hpp).
#include "kernels/reference/ar_drafter_ref.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/reference/ops_ref.hpp"
#include "kernels/reference/rejection_ref.hpp"

namespace sparksim::kernels::ar_detail {

void check_cache(const TransformerShape& s, const KvCacheShape& cs, int slot, int end) {
  if (cs.layers != 1 || cs.kv_heads != s.kv_heads || cs.head_dim != s.head_dim) {
    throw std::invalid_argument("drafter: cache must be one layer of the target's KV heads");
  }
  if (slot < 0 || slot >= cs.slots || end < 0 || end > cs.max_tokens) {
    throw std::invalid_argument("drafter: slot out of range or positions overflow its capacity");
  }
}

void check_round(const TransformerShape& s, const ArDraftOptions& o, int gamma, int anchor) {
  if (gamma < 1) throw std::invalid_argument("drafter: gamma must be >= 1");
  if (anchor < 0 || anchor >= s.vocab) throw std::invalid_argument("drafter: anchor out of range");
  if (o.temperature > 0 && static_cast<int>(o.uniforms.size()) != gamma) {
    throw std::invalid_argument("drafter: sampling needs one uniform per pass");
  }
}

void check_update(const TransformerShape& s, const KvCacheShape& cache, int slot, int start, int n,
                  const int* next_tokens, const std::string& who) {
  check_cache(s, cache, slot, start + n);
  if (start < 0 || n < 0) throw std::invalid_argument(who + ": negative start or count");
  for (int i = 0; i < n; ++i) {
    if (next_tokens[i] < 0 || next_tokens[i] >= s.vocab) {
      throw std::invalid_argument(who + ": next token out of range");
    }
  }
}

ArDraftResult start_round(const TransformerShape& s, const KvCacheShape& cache, int slot,
                          int context_len, const ArDraftOptions& o, int gamma, int anchor,
                          int head_vocab) {
  check_cache(s, cache, slot, context_len);
  check_round(s, o, gamma, anchor);
  const auto g = static_cast<std::size_t>(gamma);
  ArDraftResult out;
  out.hidden.resize(g * s.hidden);
  out.logits.resize(g * head_vocab);
  out.p_draft.assign(g * s.vocab, 0.0);
  return out;
}

void finish_pass(const LayerWeights& layer, const TransformerShape& s, const LayerQkv& qkv,
                 RoundKv& kv, double* x, const float* out_norm, const float* head, int head_rows,
                 double* logits) {
  std::vector<double> attn(static_cast<std::size_t>(s.q_width()));
  std::vector<double> normed(static_cast<std::size_t>(s.hidden));
  kv.append(qkv.k.data(), qkv.v.data());
  kv.attend(qkv.q.data(), attn.data());
  layer_output_ref(layer, s, attn.data(), 1, x);
  rms_norm_ref(x, out_norm, s.hidden, s.rms_eps, normed.data());
  matvec_ref(head, normed.data(), head_rows, s.hidden, logits);
}

RoundKv::RoundKv(const TransformerShape& s, const HostKvCache& cache, int slot, int context_len,
                 int gamma)
    : s_(s), count_(context_len) {
  const auto kvw = static_cast<std::size_t>(s.kv_width());
  keys_.resize((static_cast<std::size_t>(context_len) + gamma) * kvw);
  values_.resize(keys_.size());
  const long long base = cache.shape.offset(0, slot, 0);
  std::copy_n(cache.k.begin() + base, context_len * kvw, keys_.begin());
  std::copy_n(cache.v.begin() + base, context_len * kvw, values_.begin());
}

void RoundKv::append(const double* k, const double* v) {
  const int kvw = s_.kv_width();
  for (int i = 0; i < kvw; ++i) {
    keys_[static_cast<std::size_t>(count_) * kvw + i] = static_cast<float>(k[i]);
    values_[static_cast<std::size_t>(count_) * kvw + i] = static_cast<float>(v[i]);
  }
  ++count_;
}

void RoundKv::attend(const double* q, double* attn_out) const {
  const int hd = s_.head_dim;
  const int group = s_.q_heads / s_.kv_heads;
  for (int head = 0; head < s_.q_heads; ++head) {
    const long long kv_off = static_cast<long long>(head / group) * hd;
    attention_ref(q + head * hd, keys_.data() + kv_off, values_.data() + kv_off, count_,
                  s_.kv_width(), hd, attn_out + head * hd);
  }
}

void store_kv(HostKvCache& cache, int slot, int position, const double* k, const double* v) {
  const long long off = cache.shape.offset(0, slot, position);
  const int kvw = cache.shape.kv_heads * cache.shape.head_dim;
  for (int i = 0; i < kvw; ++i) {
    cache.k[off + i] = static_cast<float>(k[i]);
    cache.v[off + i] = static_cast<float>(v[i]);
  }
}

int choose_token(const double* logits, int n, const ArDraftOptions& o, int k, double* p) {
  if (o.temperature > 0) {
    softmax_ref(logits, n, o.temperature, p);
    return sample_inverse_cdf_ref(p, n, o.uniforms[k]);
  }
  softmax_ref(logits, n, 1.0, p);
  return static_cast<int>(std::max_element(logits, logits + n) - logits);
}

}  // namespace sparksim::kernels::ar_detail
