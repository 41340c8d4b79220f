// DsparkModel (gpu_kernels.hpp): the DSpark / dflash drafter on the device. The decoder layers
// reuse the verify kernels; what differs is the block input, the attention span (context + the
// whole block, non-causal) and the Markov-head loop (markov.cu), batched over requests per step.
#include <stdexcept>

#include "kernels/cuda/launchers.cuh"
#include "kernels/gpu_kernels.hpp"

namespace sparksim::kernels::gpu {

using detail::bf16;
using detail::DeviceBuffer;
using detail::download_bf16;
using detail::RowLayout;
using detail::upload_bf16;

namespace {

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}

struct DeviceLayer {
  DeviceBuffer<bf16> attn_norm, wqkv, q_norm, k_norm, wo, ffn_norm, w_gate_up, w_down;
  explicit DeviceLayer(const LayerWeights& w) {
    upload_bf16(attn_norm, w.attn_norm);
    upload_bf16(wqkv, w.wqkv);
    upload_bf16(q_norm, w.q_norm);
    upload_bf16(k_norm, w.k_norm);
    upload_bf16(wo, w.wo);
    upload_bf16(ffn_norm, w.ffn_norm);
    upload_bf16(w_gate_up, w.w_gate_up);
    upload_bf16(w_down, w.w_down);
  }
};

}  // namespace

struct DsparkModel::Impl {
  TransformerShape s;
  DraftShape d;
  KvCacheShape cs;
  cublasHandle_t cublas = nullptr;
  cudaStream_t stream = nullptr;
  DeviceBuffer<bf16> embed, lm_head, fc, ctx_norm, mask, final_norm, w1, w2, conf_w;
  float conf_b = 0.0f;
  DeviceBuffer<float> sts;
  std::vector<DeviceLayer> layers;
  DeviceBuffer<bf16> k_cache, v_cache;
  // Workspaces.
  DeviceBuffer<float> x, logits, base, p_draft, conf;
  DeviceBuffer<bf16> states, normed, qkv, attn, gate_up, act, hidden, w1_rows;
  DeviceBuffer<int> token_slot, token_pos, token_kv_len, anchors, prev, tokens;
  DeviceBuffer<double> uniforms;

  ~Impl() {
    if (cublas != nullptr) cublasDestroy(cublas);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }

  long long slot_stride() const { return static_cast<long long>(cs.max_tokens) * s.kv_width(); }

  // One decoder layer's attention input for T tokens of x (or of pre-normed bf16 rows), K/V
  // appended at (token_slot, token_pos).
  void qkv_and_append(int l, int t_count, const bf16* input) {
    const DeviceLayer& w = layers[l];
    const int hd = s.head_dim;
    detail::gemm_bf16(cublas, input, w.wqkv.get(), qkv.get(), false, t_count, s.qkv_width(),
                      s.hidden, 0.0f);
    const RowLayout q_rows{s.q_heads, s.qkv_width(), 0};
    const RowLayout k_rows{s.kv_heads, s.qkv_width(), s.q_width()};
    const auto eps = static_cast<float>(s.rms_eps);
    detail::launch_rms_norm<bf16>(qkv.get(), q_rows, w.q_norm.get(), t_count * s.q_heads, hd, eps,
                                  qkv.get(), q_rows, stream);
    detail::launch_rms_norm<bf16>(qkv.get(), k_rows, w.k_norm.get(), t_count * s.kv_heads, hd, eps,
                                  qkv.get(), k_rows, stream);
    detail::launch_rope(qkv.get(), q_rows, token_pos.get(), t_count * s.q_heads, hd, s.rope_theta,
                        stream);
    detail::launch_rope(qkv.get(), k_rows, token_pos.get(), t_count * s.kv_heads, hd, s.rope_theta,
                        stream);
    detail::launch_kv_append(qkv.get() + s.q_width(), qkv.get() + s.q_width() + s.kv_width(),
                             s.qkv_width(), t_count, token_slot.get(), token_pos.get(),
                             k_cache.get(), v_cache.get(), cs.offset(l, 0, 0), slot_stride(),
                             s.kv_width(), stream);
  }

  void reserve(std::size_t t) {
    x.reserve(t * s.hidden);
    normed.reserve(t * s.hidden);
    hidden.reserve(t * s.hidden);
    qkv.reserve(t * s.qkv_width());
    attn.reserve(t * s.q_width());
    gate_up.reserve(t * 2 * s.ffn);
    act.reserve(t * s.ffn);
  }
};

DsparkModel::DsparkModel(const TargetWeights& target, const DraftWeights& draft,
                         const KvCacheShape& cache) {
  target.shape.validate();
  draft.shape.validate(target.shape);
  require(cache.layers == draft.shape.layers && cache.kv_heads == target.shape.kv_heads &&
              cache.head_dim == target.shape.head_dim && cache.slots > 0 &&
              cache.max_tokens > draft.shape.block_size,
          "DsparkModel: draft cache shape does not match the drafter");
  if (device_count() == 0) throw std::runtime_error("no CUDA device");
  impl_ = std::make_unique<Impl>();
  Impl& m = *impl_;
  m.s = target.shape;
  m.d = draft.shape;
  m.cs = cache;
  SPARKSIM_CUDA(cudaStreamCreate(&m.stream));
  SPARKSIM_CUBLAS(cublasCreate(&m.cublas));
  SPARKSIM_CUBLAS(cublasSetStream(m.cublas, m.stream));
  upload_bf16(m.embed, target.embed);
  upload_bf16(m.lm_head, target.lm_head);
  upload_bf16(m.fc, draft.fc);
  upload_bf16(m.ctx_norm, draft.ctx_norm);
  upload_bf16(m.mask, draft.mask_embedding);
  upload_bf16(m.final_norm, draft.final_norm);
  upload_bf16(m.w1, draft.markov_w1);
  upload_bf16(m.w2, draft.markov_w2);
  upload_bf16(m.conf_w, draft.confidence_w);
  m.conf_b = draft.confidence_bias;
  m.sts.upload(draft.sts_temperature);
  for (const LayerWeights& l : draft.layers) m.layers.emplace_back(l);
  m.k_cache.resize(static_cast<std::size_t>(cache.elements()));
  m.v_cache.resize(static_cast<std::size_t>(cache.elements()));
  SPARKSIM_CUDA(cudaMemset(m.k_cache.get(), 0, m.k_cache.size() * sizeof(bf16)));
  SPARKSIM_CUDA(cudaMemset(m.v_cache.get(), 0, m.v_cache.size() * sizeof(bf16)));
}

DsparkModel::~DsparkModel() = default;

void DsparkModel::upload_kv(const HostKvCache& cache) {
  require(cache.shape.elements() == impl_->cs.elements(), "upload_kv: cache shape differs");
  upload_bf16(impl_->k_cache, cache.k);
  upload_bf16(impl_->v_cache, cache.v);
}

HostKvCache DsparkModel::download_kv() const {
  HostKvCache out(impl_->cs);
  SPARKSIM_CUDA(cudaStreamSynchronize(impl_->stream));
  out.k = download_bf16(impl_->k_cache.get(), out.k.size());
  out.v = download_bf16(impl_->v_cache.get(), out.v.size());
  return out;
}

void DsparkModel::context_update(const std::vector<float>& states, const RaggedBatch& rows) {
  Impl& m = *impl_;
  rows.validate(m.cs, 1 << 30);
  const int n = rows.total_tokens();
  const int ids = static_cast<int>(m.d.target_layer_ids.size());
  require(states.size() == static_cast<std::size_t>(n) * ids * m.s.hidden,
          "context_update: states must be rows x ids * hidden");
  const std::vector<int> pos = rows.positions();
  const std::vector<int> req = rows.request_of_token();
  std::vector<int> slot(req.size());
  for (std::size_t t = 0; t < req.size(); ++t) slot[t] = rows.slots[req[t]];
  m.token_slot.upload(slot);
  m.token_pos.upload(pos);
  upload_bf16(m.states, states);
  m.reserve(static_cast<std::size_t>(n));
  // h = RMSNorm(fc states), already normalised: the layers' K/V come straight from it.
  detail::gemm_bf16(m.cublas, m.states.get(), m.fc.get(), m.normed.get(), false, n, m.s.hidden,
                    ids * m.s.hidden, 0.0f);
  const RowLayout plain{1, m.s.hidden, 0};
  detail::launch_rms_norm<bf16>(m.normed.get(), plain, m.ctx_norm.get(), n, m.s.hidden,
                                static_cast<float>(m.s.rms_eps), m.normed.get(), plain, m.stream);
  for (int l = 0; l < m.d.layers; ++l) m.qkv_and_append(l, n, m.normed.get());
  SPARKSIM_CUDA(cudaStreamSynchronize(m.stream));
}

GpuDraftResult DsparkModel::draft(const std::vector<int>& anchors,
                                  const std::vector<int>& context_lens,
                                  const std::vector<int>& slots, double temperature,
                                  const std::vector<double>& uniforms, bool markov_and_confidence) {
  Impl& m = *impl_;
  const TransformerShape& s = m.s;
  const int r_count = static_cast<int>(anchors.size());
  const int gamma = m.d.block_size;
  require(r_count > 0 && context_lens.size() == anchors.size() && slots.size() == anchors.size(),
          "draft: anchors, context_lens and slots must have one entry per request");
  require(temperature <= 0 || uniforms.size() == static_cast<std::size_t>(r_count) * gamma,
          "draft: sampling needs R x gamma uniforms");
  for (int r = 0; r < r_count; ++r) {
    require(anchors[r] >= 0 && anchors[r] < s.vocab, "draft: anchor outside the vocabulary");
    require(slots[r] >= 0 && slots[r] < m.cs.slots, "draft: slot out of range");
    require(context_lens[r] >= 0 && context_lens[r] + gamma <= m.cs.max_tokens,
            "draft: context + block overflows the slot");
  }
  const int t_count = r_count * gamma;
  const auto t = static_cast<std::size_t>(t_count);
  const auto v = static_cast<std::size_t>(s.vocab);
  std::vector<int> slot(t), pos(t), kv_len(t);
  for (int r = 0; r < r_count; ++r) {
    for (int k = 0; k < gamma; ++k) {
      slot[r * gamma + k] = slots[r];
      pos[r * gamma + k] = context_lens[r] + k;
      kv_len[r * gamma + k] = context_lens[r] + gamma;  // non-causal: the whole block
    }
  }
  m.token_slot.upload(slot);
  m.token_pos.upload(pos);
  m.token_kv_len.upload(kv_len);
  m.anchors.upload(anchors);
  m.prev.upload(anchors);
  m.tokens.reserve(t);
  m.reserve(t);
  m.base.reserve(t * v);
  m.logits.reserve(t * v);
  m.p_draft.reserve(t * v);
  m.conf.reserve(t);
  m.w1_rows.reserve(static_cast<std::size_t>(r_count) * m.d.markov_rank);
  if (temperature > 0) m.uniforms.upload(uniforms);

  const cudaStream_t st = m.stream;
  const auto eps = static_cast<float>(s.rms_eps);
  const RowLayout hidden_rows{1, s.hidden, 0};
  detail::launch_block_input(m.anchors.get(), r_count, gamma, m.embed.get(), m.mask.get(), s.hidden,
                             m.x.get(), st);
  for (int l = 0; l < m.d.layers; ++l) {
    const DeviceLayer& w = m.layers[l];
    detail::launch_rms_norm<float>(m.x.get(), hidden_rows, w.attn_norm.get(), t_count, s.hidden,
                                   eps, m.normed.get(), hidden_rows, st);
    m.qkv_and_append(l, t_count, m.normed.get());
    detail::launch_ragged_attention(
        m.qkv.get(), s.qkv_width(), m.k_cache.get(), m.v_cache.get(), m.cs.offset(l, 0, 0),
        m.slot_stride(), s.kv_width(), m.token_slot.get(), m.token_kv_len.get(), t_count, s.q_heads,
        s.q_heads / s.kv_heads, s.head_dim, m.attn.get(), s.q_width(), st);
    detail::gemm_bf16(m.cublas, m.attn.get(), w.wo.get(), m.x.get(), true, t_count, s.hidden,
                      s.q_width(), 1.0f);
    detail::launch_rms_norm<float>(m.x.get(), hidden_rows, w.ffn_norm.get(), t_count, s.hidden, eps,
                                   m.normed.get(), hidden_rows, st);
    detail::gemm_bf16(m.cublas, m.normed.get(), w.w_gate_up.get(), m.gate_up.get(), false, t_count,
                      2 * s.ffn, s.hidden, 0.0f);
    detail::launch_swiglu(m.gate_up.get(), t_count, s.ffn, m.act.get(), st);
    detail::gemm_bf16(m.cublas, m.act.get(), w.w_down.get(), m.x.get(), true, t_count, s.hidden,
                      s.ffn, 1.0f);
  }
  detail::launch_rms_norm<float>(m.x.get(), hidden_rows, m.final_norm.get(), t_count, s.hidden, eps,
                                 m.hidden.get(), hidden_rows, st);
  detail::gemm_bf16(m.cublas, m.hidden.get(), m.lm_head.get(), m.base.get(), true, t_count, s.vocab,
                    s.hidden, 0.0f);
  SPARKSIM_CUDA(cudaMemcpyAsync(m.logits.get(), m.base.get(), t * v * sizeof(float),
                                cudaMemcpyDeviceToDevice, st));
  const int rank = m.d.markov_rank;
  for (int k = 0; k < gamma; ++k) {
    if (markov_and_confidence) {
      detail::launch_markov_gather(m.prev.get(), r_count, m.w1.get(), rank, m.hidden.get(),
                                   s.hidden, gamma, k, m.conf_w.get(), m.conf_b, m.sts.get(),
                                   m.w1_rows.get(), m.conf.get(), st);
      // Rows (r, k) of logits += W1[x_{k-1}] W2^T: one GEMM for all requests (row stride gamma V).
      detail::gemm_bf16(m.cublas, m.w1_rows.get(), m.w2.get(), m.logits.get() + k * v, true,
                        r_count, s.vocab, rank, 1.0f, gamma * s.vocab);
    }
    detail::launch_markov_sample(m.logits.get(), r_count, gamma, k, s.vocab,
                                 static_cast<float>(temperature),
                                 temperature > 0 ? m.uniforms.get() : nullptr, m.p_draft.get(),
                                 m.tokens.get(), m.prev.get(), st);
  }
  SPARKSIM_CUDA(cudaStreamSynchronize(st));
  GpuDraftResult out;
  out.tokens = m.tokens.download(t);
  out.p_draft = m.p_draft.download(t * v);
  out.base_logits = m.base.download(t * v);
  if (markov_and_confidence) out.confidence = m.conf.download(t);
  return out;
}

}  // namespace sparksim::kernels::gpu
