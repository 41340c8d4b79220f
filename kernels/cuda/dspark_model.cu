// DsparkModel (gpu_kernels.hpp): the DSpark / dflash drafter on the device. The decoder layers
// reuse the verify kernels; what differs is the block input, the attention span (context + the
// whole block, non-causal) and the Markov-head loop (markov.cu), batched over requests per step.
// A round is set (host validation, index uploads), run (enqueued, nothing downloaded) and read
// (results) apart, so timing sees the device work alone.
#include <cmath>
#include <set>
#include <stdexcept>

#include "kernels/cuda/device_stream.cuh"
#include "kernels/cuda/launchers.cuh"
#include "kernels/gpu_kernels.hpp"

namespace sparksim::kernels::gpu {

using detail::bf16;
using detail::DeviceBuffer;
using detail::DeviceLayer;
using detail::require;
using detail::RowLayout;
using detail::upload_async;
using detail::upload_bf16;

struct DsparkModel::Impl : detail::LayerWorkspace {
  TransformerShape s;
  DraftShape d;
  KvCacheShape cs;
  detail::DeviceStream queue;
  const cudaStream_t stream = queue.stream();
  const cublasHandle_t cublas = queue.cublas();
  detail::EventTimer timer;
  detail::EventTimer markov_timer;  // around the Markov-head loop of every run
  // The target's embedding and LM head: owned copies (host-uploaded model) or borrowed.
  DeviceBuffer<bf16> own_embed, own_lm_head;
  const bf16* embed = nullptr;
  const bf16* lm_head = nullptr;
  DeviceBuffer<bf16> fc, ctx_norm, mask, final_norm, w1, w2, conf_w;
  float conf_b = 0.0f;
  DeviceBuffer<float> sts;
  std::vector<DeviceLayer> layers;
  DeviceBuffer<bf16> k_cache, v_cache;
  // Workspaces.
  DeviceBuffer<float> logits, base, p_draft, conf;  // and the layer workspace
  DeviceBuffer<bf16> states, hidden, w1_rows;
  DeviceBuffer<int> token_slot, token_pos, token_kv_len, anchors, prev, tokens;
  DeviceBuffer<double> uniforms;
  // The round set by set_draft.
  int r_count = 0;
  double temperature = 0.0;
  bool markov_and_confidence = true;

  Impl(const TransformerShape& target, const DraftShape& draft, const KvCacheShape& cache)
      : s(target), d(draft) {
    allocate_cache(cache);
  }
  ~Impl() { cudaStreamSynchronize(stream); }  // before the buffers are freed

  void allocate_cache(const KvCacheShape& cache) {
    cs = cache;
    detail::allocate_zeroed_kv(k_cache, v_cache, static_cast<std::size_t>(cache.elements()),
                               stream);
  }

  // The drafter's own tensors in make_random_draft_weights' order (tensor ids from 500000); the
  // confidence bias and the STS temperatures are drawn on the host (gamma + 1 values).
  void draw(std::uint64_t seed, double matrix_std) {
    const auto h = static_cast<std::size_t>(s.hidden);
    const auto v = static_cast<std::size_t>(s.vocab);
    const auto r = static_cast<std::size_t>(d.markov_rank);
    const double half = matrix_std * std::sqrt(3.0);
    std::uint64_t id = 500000;
    const auto fill = [&](DeviceBuffer<bf16>& b, std::size_t n, bool gain) {
      b.resize(n);
      detail::launch_fill_random(b.get(), n, seed, id++, gain ? 1.0 : 0.0, gain ? 0.1 : half,
                                 stream);
    };
    fill(fc, h * d.target_layer_ids.size() * h, false);
    fill(ctx_norm, h, true);
    layers.resize(static_cast<std::size_t>(d.layers));
    for (DeviceLayer& l : layers) {
      fill(l.attn_norm, h, true);
      fill(l.wqkv, static_cast<std::size_t>(s.qkv_width()) * h, false);
      fill(l.q_norm, static_cast<std::size_t>(s.head_dim), true);
      fill(l.k_norm, static_cast<std::size_t>(s.head_dim), true);
      fill(l.wo, h * static_cast<std::size_t>(s.q_width()), false);
      fill(l.ffn_norm, h, true);
      fill(l.w_gate_up, 2 * static_cast<std::size_t>(s.ffn) * h, false);
      fill(l.w_down, h * static_cast<std::size_t>(s.ffn), false);
    }
    fill(mask, h, false);
    fill(final_norm, h, true);
    fill(w1, v * r, false);
    fill(w2, v * r, false);
    fill(conf_w, h + r, false);
    conf_b = random_weight(seed, id++, 0, 0.0, 0.5);
    std::vector<float> temperatures(static_cast<std::size_t>(d.block_size));
    const std::uint64_t sts_id = id++;
    for (std::size_t k = 0; k < temperatures.size(); ++k) {
      temperatures[k] = random_weight(seed, sts_id, k, 1.25, 0.75);
    }
    sts.upload(temperatures);
    SPARKSIM_CUDA(cudaStreamSynchronize(stream));
  }

  long long slot_stride() const { return static_cast<long long>(cs.max_tokens) * s.kv_width(); }

  // One decoder layer's attention input for T tokens of x (or of pre-normed bf16 rows), K/V
  // appended at (token_slot, token_pos).
  void qkv_and_append(int l, int t_count, const bf16* input) {
    const DeviceLayer& w = layers[l];
    const int hd = s.head_dim;
    detail::gemm_bf16(cublas, input, w.wqkv.get(), qkv.get(), false, t_count, s.qkv_width(),
                      s.hidden, 0.0f);
    detail::launch_qk_norm_rope_kv_append(
        qkv.get(), t_count, s.q_heads, s.kv_heads, hd, w.q_norm.get(), w.k_norm.get(),
        static_cast<float>(s.rms_eps), s.rope_theta, token_slot.get(), token_pos.get(),
        k_cache.get(), v_cache.get(), cs.offset(l, 0, 0), slot_stride(), stream);
  }

  void reserve(std::size_t t) {
    reserve_tokens(s, t);
    hidden.reserve(t * s.hidden);
  }
};

namespace {

void check_draft_cache(const TransformerShape& target, const DraftShape& draft,
                       const KvCacheShape& cache) {
  target.validate();
  draft.validate(target);
  require(cache.layers == draft.layers && cache.kv_heads == target.kv_heads &&
              cache.head_dim == target.head_dim && cache.slots > 0 &&
              cache.max_tokens > draft.block_size,
          "DsparkModel: draft cache shape does not match the drafter");
  if (device_count() == 0) throw std::runtime_error("no CUDA device");
}

}  // namespace

DsparkModel::DsparkModel(const TargetWeights& target, const DraftWeights& draft,
                         const KvCacheShape& cache) {
  check_draft_cache(target.shape, draft.shape, cache);
  impl_ = std::make_unique<Impl>(target.shape, draft.shape, cache);
  Impl& m = *impl_;
  upload_bf16(m.own_embed, target.embed);
  upload_bf16(m.own_lm_head, target.lm_head);
  m.embed = m.own_embed.get();
  m.lm_head = m.own_lm_head.get();
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
}

DsparkModel::DsparkModel(const VerifyModel& target, const DraftShape& draft, std::uint64_t seed,
                         double matrix_std, const KvCacheShape& cache) {
  check_draft_cache(target.shape(), draft, cache);
  impl_ = std::make_unique<Impl>(target.shape(), draft, cache);
  Impl& m = *impl_;
  const VerifyModel::DeviceHeads heads = target.heads();
  m.embed = static_cast<const bf16*>(heads.embed);
  m.lm_head = static_cast<const bf16*>(heads.lm_head);
  m.draw(seed, matrix_std);
}

DsparkModel::~DsparkModel() = default;

void DsparkModel::upload_kv(const HostKvCache& cache) {
  require(cache.shape.elements() == impl_->cs.elements(), "upload_kv: cache shape differs");
  SPARKSIM_CUDA(cudaStreamSynchronize(impl_->stream));
  upload_bf16(impl_->k_cache, cache.k);
  upload_bf16(impl_->v_cache, cache.v);
}

HostKvCache DsparkModel::download_kv() const {
  HostKvCache out(impl_->cs);
  SPARKSIM_CUDA(cudaStreamSynchronize(impl_->stream));
  out.k = detail::download_bf16(impl_->k_cache.get(), out.k.size());
  out.v = detail::download_bf16(impl_->v_cache.get(), out.v.size());
  return out;
}

void DsparkModel::resize_kv(const KvCacheShape& cache) {
  check_draft_cache(impl_->s, impl_->d, cache);
  SPARKSIM_CUDA(cudaStreamSynchronize(impl_->stream));
  impl_->allocate_cache(cache);
  impl_->r_count = 0;  // the current round was validated against the old cache
}

void DsparkModel::context_update(const std::vector<float>& states, const RaggedBatch& rows) {
  Impl& m = *impl_;
  rows.validate(m.cs, 1 << 30);
  const int n = rows.total_tokens();
  const int ids = static_cast<int>(m.d.target_layer_ids.size());
  require(states.size() == static_cast<std::size_t>(n) * ids * m.s.hidden,
          "context_update: states must be rows x ids * hidden");
  const std::vector<int> pos = rows.positions();
  const std::vector<int> slot = rows.slot_of_token();
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

void DsparkModel::set_draft(const DraftRequest& request) {
  Impl& m = *impl_;
  const int gamma = m.d.block_size;
  request.validate(m.cs, m.s.vocab, gamma);
  const int r_count = request.requests();
  const auto t = static_cast<std::size_t>(r_count) * gamma;
  const auto v = static_cast<std::size_t>(m.s.vocab);
  const DraftTokenIndex index = draft_token_index(request, gamma);
  upload_async(m.token_slot, index.slot, m.stream);
  upload_async(m.token_pos, index.pos, m.stream);
  upload_async(m.token_kv_len, index.kv_len, m.stream);
  upload_async(m.anchors, request.anchors, m.stream);
  if (request.temperature > 0) upload_async(m.uniforms, request.uniforms, m.stream);
  m.prev.reserve(static_cast<std::size_t>(r_count));
  m.tokens.reserve(t);
  m.reserve(t);
  m.base.reserve(t * v);
  m.logits.reserve(t * v);
  m.p_draft.reserve(t * v);
  m.conf.reserve(t);
  m.w1_rows.reserve(static_cast<std::size_t>(r_count) * m.d.markov_rank);
  m.r_count = r_count;
  m.temperature = request.temperature;
  m.markov_and_confidence = request.markov_and_confidence;
}

void DsparkModel::run() {
  Impl& m = *impl_;
  require(m.r_count > 0, "DsparkModel::run: no round set");
  const TransformerShape& s = m.s;
  const int r_count = m.r_count;
  const int gamma = m.d.block_size;
  const int t_count = r_count * gamma;
  const auto v = static_cast<std::size_t>(s.vocab);
  const cudaStream_t st = m.stream;
  const auto eps = static_cast<float>(s.rms_eps);
  const RowLayout hidden_rows{1, s.hidden, 0};
  // The Markov chain starts at each request's anchor.
  SPARKSIM_CUDA(cudaMemcpyAsync(m.prev.get(), m.anchors.get(), r_count * sizeof(int),
                                cudaMemcpyDeviceToDevice, st));
  detail::launch_block_input(m.anchors.get(), r_count, gamma, m.embed, m.mask.get(), s.hidden,
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
  detail::gemm_bf16(m.cublas, m.hidden.get(), m.lm_head, m.base.get(), true, t_count, s.vocab,
                    s.hidden, 0.0f);
  m.markov_timer.start(st);
  SPARKSIM_CUDA(cudaMemcpyAsync(m.logits.get(), m.base.get(), t_count * v * sizeof(float),
                                cudaMemcpyDeviceToDevice, st));
  const int rank = m.d.markov_rank;
  for (int k = 0; k < gamma; ++k) {
    if (m.markov_and_confidence) {
      detail::launch_markov_gather(m.prev.get(), r_count, m.w1.get(), rank, m.hidden.get(),
                                   s.hidden, gamma, k, m.conf_w.get(), m.conf_b, m.sts.get(),
                                   m.w1_rows.get(), m.conf.get(), st);
      // Rows (r, k) of logits += W1[x_{k-1}] W2^T: one GEMM for all requests (row stride gamma V).
      detail::gemm_bf16(m.cublas, m.w1_rows.get(), m.w2.get(), m.logits.get() + k * v, true,
                        r_count, s.vocab, rank, 1.0f, gamma * s.vocab);
    }
    detail::launch_markov_sample(m.logits.get(), r_count, gamma, k, s.vocab,
                                 static_cast<float>(m.temperature),
                                 m.temperature > 0 ? m.uniforms.get() : nullptr, m.p_draft.get(),
                                 m.tokens.get(), m.prev.get(), st);
  }
  m.markov_timer.stop(st);
}

double DsparkModel::last_markov_loop_us() const {
  return impl_->markov_timer.elapsed_us();
}

GpuDraftResult DsparkModel::results() const {
  const Impl& m = *impl_;
  require(m.r_count > 0, "DsparkModel::results: no round set");
  SPARKSIM_CUDA(cudaStreamSynchronize(m.stream));
  const auto t = static_cast<std::size_t>(m.r_count) * m.d.block_size;
  const auto v = static_cast<std::size_t>(m.s.vocab);
  GpuDraftResult out;
  out.tokens = m.tokens.download(t);
  out.p_draft = m.p_draft.download(t * v);
  out.base_logits = m.base.download(t * v);
  if (m.markov_and_confidence) out.confidence = m.conf.download(t);
  return out;
}

double DsparkModel::run_timed_us() {
  return impl_->timer.time_us(impl_->stream, [this] { run(); });
}

void DsparkModel::context_update_device(const void* states, const RaggedBatch& rows, void* after) {
  Impl& m = *impl_;
  rows.validate(m.cs, 1 << 30);
  const int n = rows.total_tokens();
  const int ids = static_cast<int>(m.d.target_layer_ids.size());
  const std::vector<int> pos = rows.positions();
  const std::vector<int> slot = rows.slot_of_token();
  upload_async(m.token_slot, slot, m.stream);
  upload_async(m.token_pos, pos, m.stream);
  m.reserve(static_cast<std::size_t>(n));
  detail::wait_for_stream(m.stream, after);
  detail::gemm_bf16(m.cublas, static_cast<const bf16*>(states), m.fc.get(), m.normed.get(), false,
                    n, m.s.hidden, ids * m.s.hidden, 0.0f);
  const RowLayout plain{1, m.s.hidden, 0};
  detail::launch_rms_norm<bf16>(m.normed.get(), plain, m.ctx_norm.get(), n, m.s.hidden,
                                static_cast<float>(m.s.rms_eps), m.normed.get(), plain, m.stream);
  for (int l = 0; l < m.d.layers; ++l) m.qkv_and_append(l, n, m.normed.get());
}

DsparkModel::DeviceView DsparkModel::device_view() const {
  return {impl_->stream, impl_->tokens.get(), impl_->p_draft.get(), impl_->d.block_size};
}

GpuDraftResult DsparkModel::draft(const std::vector<int>& anchors,
                                  const std::vector<int>& context_lens,
                                  const std::vector<int>& slots, double temperature,
                                  const std::vector<double>& uniforms, bool markov_and_confidence) {
  DraftRequest request;
  request.anchors = anchors;
  request.context_lens = context_lens;
  request.slots = slots;
  request.temperature = temperature;
  request.uniforms = uniforms;
  request.markov_and_confidence = markov_and_confidence;
  set_draft(request);
  run();
  return results();
}

}  // namespace sparksim::kernels::gpu
