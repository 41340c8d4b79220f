// ArDrafterModel (ar_drafter_gpu.hpp): MTP-1 and EAGLE-3 on the device. A pass is one decoder
// layer over R rows (one per request) built from the verify kernels; the two drafters differ only
// in the layer's input (MTP-1: eh_proj [enorm(Emb t) ; hnorm(g)] then the layer's own attn_norm;
// EAGLE-3: W_qkv over [attn_norm(Emb t) ; hidden_norm(g)] with the residual stream starting at g)
// and the head (MTP-1: the target's LM head; EAGLE-3: its own over the draft vocabulary, then
// d2t). Pass k writes its K/V at positions context + k of each slot (scratch beyond the context)
// and attends causally to context + k + 1 positions.
#include <cmath>
#include <stdexcept>

#include "kernels/ar_drafter_gpu.hpp"
#include "kernels/cuda/device_stream.cuh"
#include "kernels/cuda/launchers.cuh"

namespace sparksim::kernels::gpu {

using detail::bf16;
using detail::DeviceBuffer;
using detail::DeviceLayer;
using detail::download_bf16;
using detail::require;
using detail::RowLayout;
using detail::upload_async;
using detail::upload_bf16;

namespace {

constexpr int kThreads = 256;

// dst [rows x width] fp32 = src rows (bf16, row stride width).
__global__ void widen_kernel(const bf16* src, long long count, float* dst) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    dst[i] = __bfloat162float(src[i]);
  }
}

// EAGLE-3: the pass's draft-vocabulary token becomes the target's (d2t), in tokens and prev.
__global__ void map_tokens_kernel(int* tokens, int* prev, const int* d2t, int requests, int gamma,
                                  int k) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= requests) return;
  const int target = d2t[tokens[r * gamma + k]];
  tokens[r * gamma + k] = target;
  prev[r] = target;
}

std::vector<float> to_bf16_exact(const std::vector<float>& v) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = round_to_bf16(v[i]);
  return out;
}

}  // namespace

struct ArDrafterModel::Impl {
  ArFamily family;
  TransformerShape s;
  KvCacheShape cs;
  int head_vocab = 0;
  detail::DeviceStream queue;
  const cudaStream_t stream = queue.stream();
  const cublasHandle_t cublas = queue.cublas();
  detail::EventTimer timer;
  DeviceBuffer<bf16> own_embed, own_lm_head;
  const bf16* embed = nullptr;
  const bf16* head = nullptr;  // MTP-1: the target's LM head; EAGLE-3: the drafter's
  // MTP-1: in_norm_e = enorm, in_norm_h = hnorm, in_proj = eh_proj, out_norm = head_norm.
  // EAGLE-3: in_norm_h = hidden_norm, in_proj = fc (3h -> h), out_norm = final_norm (the
  // embedding's norm is the layer's attn_norm).
  DeviceBuffer<bf16> in_norm_e, in_norm_h, in_proj, out_norm;
  DeviceLayer layer;
  DeviceBuffer<int> d2t;
  DeviceBuffer<bf16> k_cache, v_cache;
  // Workspaces.
  DeviceBuffer<float> g, x, emb, hidden_all, logits, p_draft;
  DeviceBuffer<bf16> states, cat, normed, qkv, attn, gate_up, act;
  DeviceBuffer<int> slot, pos, kv_len, prev, tokens, next;
  DeviceBuffer<double> uniforms;
  int r_count = 0;
  int gamma = 0;
  double temperature = 0.0;

  Impl(ArFamily f, const TransformerShape& target, const KvCacheShape& cache)
      : family(f), s(target) {
    allocate_cache(cache);
  }
  ~Impl() { cudaStreamSynchronize(stream); }  // before the buffers are freed

  bool mtp() const { return family == ArFamily::kMtp1; }
  void set_round(const DraftRequest& round, int gamma);
  int state_width() const { return mtp() ? s.hidden : 3 * s.hidden; }
  long long slot_stride() const { return static_cast<long long>(cs.max_tokens) * s.kv_width(); }

  // A host-uploaded model's owned embedding and head (head_vocab rows).
  void upload_heads(const std::vector<float>& embed_w, const std::vector<float>& head_w,
                    int vocab) {
    head_vocab = vocab;
    upload_bf16(own_embed, embed_w);
    upload_bf16(own_lm_head, head_w);
    embed = own_embed.get();
    head = own_lm_head.get();
  }

  void allocate_cache(const KvCacheShape& cache) {
    cs = cache;
    detail::allocate_zeroed_kv(k_cache, v_cache, static_cast<std::size_t>(cache.elements()),
                               stream);
  }

  void reserve(std::size_t rows) {
    const auto h = static_cast<std::size_t>(s.hidden);
    g.reserve(rows * h);
    x.reserve(rows * h);
    emb.reserve(rows * h);
    states.reserve(rows * state_width());
    cat.reserve(rows * 2 * h);
    normed.reserve(rows * h);
    qkv.reserve(rows * s.qkv_width());
    attn.reserve(rows * s.q_width());
    gate_up.reserve(rows * 2 * s.ffn);
    act.reserve(rows * s.ffn);
  }

  // The device draw, in make_random_mtp1_weights' / make_random_eagle3_weights' tensor order.
  void draw(std::uint64_t seed, double matrix_std) {
    const double half = matrix_std * std::sqrt(3.0);
    std::uint64_t id = mtp() ? kMtp1FirstTensorId : kEagle3FirstTensorId;
    const auto h = static_cast<std::size_t>(s.hidden);
    const auto fill = [&](DeviceBuffer<bf16>& b, std::size_t n, bool gain) {
      b.resize(n);
      detail::launch_fill_random(b.get(), n, seed, id++, gain ? 1.0 : 0.0, gain ? 0.1 : half,
                                 stream);
    };
    if (mtp()) {
      fill(in_norm_e, h, true);
      fill(in_norm_h, h, true);
      fill(in_proj, h * 2 * h, false);
    } else {
      fill(in_proj, h * 3 * h, false);
      fill(in_norm_h, h, true);
    }
    const std::size_t qkv_in = mtp() ? h : 2 * h;
    fill(layer.attn_norm, h, true);
    fill(layer.wqkv, static_cast<std::size_t>(s.qkv_width()) * qkv_in, false);
    fill(layer.q_norm, static_cast<std::size_t>(s.head_dim), true);
    fill(layer.k_norm, static_cast<std::size_t>(s.head_dim), true);
    fill(layer.wo, h * static_cast<std::size_t>(s.q_width()), false);
    fill(layer.ffn_norm, h, true);
    fill(layer.w_gate_up, 2 * static_cast<std::size_t>(s.ffn) * h, false);
    fill(layer.w_down, h * static_cast<std::size_t>(s.ffn), false);
    fill(out_norm, h, true);
    if (!mtp()) fill(own_lm_head, static_cast<std::size_t>(head_vocab) * h, false);
    SPARKSIM_CUDA(cudaStreamSynchronize(stream));
  }

  // g [count x hidden] fp32 from the target states in `states` (bf16 [count x state width]):
  // MTP-1 widens them, EAGLE-3 fuses low, mid and high through fc.
  void states_to_g(int count) {
    if (mtp()) {
      const long long n = static_cast<long long>(count) * s.hidden;
      if (n == 0) return;
      widen_kernel<<<static_cast<int>(std::min<long long>((n + kThreads - 1) / kThreads, 4096)),
                     kThreads, 0, stream>>>(states.get(), n, g.get());
      SPARKSIM_LAUNCHED();
    } else {
      detail::gemm_bf16(cublas, states.get(), in_proj.get(), g.get(), true, count, s.hidden,
                        3 * s.hidden, 0.0f);
    }
  }

  // The layer's q, k, v for `count` rows of (g, token at tok) at (slot, position), K/V appended.
  // Leaves x = the residual stream's start (MTP-1: eh_proj of the input; EAGLE-3: g).
  void layer_qkv(int count, const int* tok, const int* slot_of, const int* pos_of) {
    const int h = s.hidden;
    const auto eps = static_cast<float>(s.rms_eps);
    const RowLayout rows{1, h, 0};
    const RowLayout left{1, 2LL * h, 0};
    const RowLayout right{1, 2LL * h, h};
    detail::launch_embed(tok, count, embed, h, emb.get(), stream);
    detail::launch_rms_norm<float>(emb.get(), rows, mtp() ? in_norm_e.get() : layer.attn_norm.get(),
                                   count, h, eps, cat.get(), left, stream);
    detail::launch_rms_norm<float>(g.get(), rows, in_norm_h.get(), count, h, eps, cat.get(), right,
                                   stream);
    if (mtp()) {
      detail::gemm_bf16(cublas, cat.get(), in_proj.get(), x.get(), true, count, h, 2 * h, 0.0f);
      detail::launch_rms_norm<float>(x.get(), rows, layer.attn_norm.get(), count, h, eps,
                                     normed.get(), rows, stream);
      detail::gemm_bf16(cublas, normed.get(), layer.wqkv.get(), qkv.get(), false, count,
                        s.qkv_width(), h, 0.0f);
    } else {
      SPARKSIM_CUDA(cudaMemcpyAsync(x.get(), g.get(), static_cast<std::size_t>(count) * h * 4,
                                    cudaMemcpyDeviceToDevice, stream));
      detail::gemm_bf16(cublas, cat.get(), layer.wqkv.get(), qkv.get(), false, count, s.qkv_width(),
                        2 * h, 0.0f);
    }
    const int hd = s.head_dim;
    const RowLayout q_rows{s.q_heads, s.qkv_width(), 0};
    const RowLayout k_rows{s.kv_heads, s.qkv_width(), s.q_width()};
    detail::launch_rms_norm<bf16>(qkv.get(), q_rows, layer.q_norm.get(), count * s.q_heads, hd, eps,
                                  qkv.get(), q_rows, stream);
    detail::launch_rms_norm<bf16>(qkv.get(), k_rows, layer.k_norm.get(), count * s.kv_heads, hd,
                                  eps, qkv.get(), k_rows, stream);
    detail::launch_rope(qkv.get(), q_rows, pos_of, count * s.q_heads, hd, s.rope_theta, stream);
    detail::launch_rope(qkv.get(), k_rows, pos_of, count * s.kv_heads, hd, s.rope_theta, stream);
    detail::launch_kv_append(qkv.get() + s.q_width(), qkv.get() + s.q_width() + s.kv_width(),
                             s.qkv_width(), count, slot_of, pos_of, k_cache.get(), v_cache.get(), 0,
                             slot_stride(), s.kv_width(), stream);
  }
};

namespace {

void check_shapes(const TransformerShape& target, const KvCacheShape& cache) {
  target.validate();
  require(cache.layers == 1 && cache.kv_heads == target.kv_heads &&
              cache.head_dim == target.head_dim && cache.slots > 0 && cache.max_tokens > 1,
          "ArDrafterModel: the cache must be one layer of the target's KV heads");
  if (device_count() == 0) throw std::runtime_error("no CUDA device");
}

}  // namespace

ArDrafterModel::ArDrafterModel(const TargetWeights& target, const Mtp1Weights& w,
                               const KvCacheShape& cache) {
  check_shapes(target.shape, cache);
  impl_ = std::make_unique<Impl>(ArFamily::kMtp1, target.shape, cache);
  Impl& m = *impl_;
  m.upload_heads(target.embed, target.lm_head, target.shape.vocab);
  upload_bf16(m.in_norm_e, w.enorm);
  upload_bf16(m.in_norm_h, w.hnorm);
  upload_bf16(m.in_proj, w.eh_proj);
  upload_bf16(m.out_norm, w.head_norm);
  m.layer.upload(w.layer);
}

ArDrafterModel::ArDrafterModel(const TargetWeights& target, const Eagle3Weights& w,
                               const KvCacheShape& cache) {
  check_shapes(target.shape, cache);
  w.shape.validate(target.shape);
  impl_ = std::make_unique<Impl>(ArFamily::kEagle3, target.shape, cache);
  Impl& m = *impl_;
  m.upload_heads(target.embed, w.lm_head, w.shape.draft_vocab);
  upload_bf16(m.in_proj, w.fc);
  upload_bf16(m.in_norm_h, w.hidden_norm);
  upload_bf16(m.out_norm, w.final_norm);
  m.layer.upload(w.layer);
  m.d2t.upload(w.d2t);
}

ArDrafterModel::ArDrafterModel(const VerifyModel& target, ArFamily family, std::uint64_t seed,
                               double matrix_std, const KvCacheShape& cache) {
  check_shapes(target.shape(), cache);
  impl_ = std::make_unique<Impl>(family, target.shape(), cache);
  Impl& m = *impl_;
  const VerifyModel::DeviceHeads heads = target.heads();
  m.embed = static_cast<const bf16*>(heads.embed);
  if (family == ArFamily::kMtp1) {
    m.head_vocab = target.shape().vocab;
    m.head = static_cast<const bf16*>(heads.lm_head);
  } else {
    const Eagle3Shape es = eagle3_shape(target.shape());
    m.head_vocab = es.draft_vocab;
    m.d2t.upload(eagle3_d2t(target.shape(), es, seed));
  }
  m.draw(seed, matrix_std);
  if (family == ArFamily::kEagle3) m.head = m.own_lm_head.get();
}

ArDrafterModel::~ArDrafterModel() = default;

ArFamily ArDrafterModel::family() const {
  return impl_->family;
}
int ArDrafterModel::state_width() const {
  return impl_->state_width();
}
int ArDrafterModel::head_vocab() const {
  return impl_->head_vocab;
}

std::size_t ArDrafterModel::weight_bytes() const {
  const Impl& m = *impl_;
  const DeviceLayer& l = m.layer;
  std::size_t n = m.in_norm_e.size() + m.in_norm_h.size() + m.in_proj.size() + m.out_norm.size() +
                  l.attn_norm.size() + l.wqkv.size() + l.q_norm.size() + l.k_norm.size() +
                  l.wo.size() + l.ffn_norm.size() + l.w_gate_up.size() + l.w_down.size();
  if (m.family == ArFamily::kEagle3) n += static_cast<std::size_t>(m.head_vocab) * m.s.hidden;
  return 2 * n;
}

void ArDrafterModel::upload_kv(const HostKvCache& cache) {
  require(cache.shape.elements() == impl_->cs.elements(), "upload_kv: cache shape differs");
  SPARKSIM_CUDA(cudaStreamSynchronize(impl_->stream));
  upload_bf16(impl_->k_cache, cache.k);
  upload_bf16(impl_->v_cache, cache.v);
}

HostKvCache ArDrafterModel::download_kv() const {
  HostKvCache out(impl_->cs);
  SPARKSIM_CUDA(cudaStreamSynchronize(impl_->stream));
  out.k = download_bf16(impl_->k_cache.get(), out.k.size());
  out.v = download_bf16(impl_->v_cache.get(), out.v.size());
  return out;
}

void ArDrafterModel::resize_kv(const KvCacheShape& cache) {
  check_shapes(impl_->s, cache);
  SPARKSIM_CUDA(cudaStreamSynchronize(impl_->stream));
  impl_->allocate_cache(cache);
  impl_->r_count = 0;
}

void ArDrafterModel::context_update(const std::vector<float>& states, const RaggedBatch& rows) {
  Impl& m = *impl_;
  rows.validate(m.cs, m.s.vocab);
  const int n = rows.total_tokens();
  require(states.size() == static_cast<std::size_t>(n) * m.state_width(),
          "context_update: states must be rows x state width");
  const std::vector<int> slot_of = rows.slot_of_token();
  m.reserve(static_cast<std::size_t>(n));
  upload_async(m.slot, slot_of, m.stream);
  upload_async(m.pos, rows.positions(), m.stream);
  upload_async(m.next, rows.tokens, m.stream);
  SPARKSIM_CUDA(cudaStreamSynchronize(m.stream));  // the host vectors above are temporaries
  upload_bf16(m.states, to_bf16_exact(states));
  m.states_to_g(n);
  m.layer_qkv(n, m.next.get(), m.slot.get(), m.pos.get());
  SPARKSIM_CUDA(cudaStreamSynchronize(m.stream));
  m.r_count = 0;  // the update reused the round's index and state buffers: set it again
}

void ArDrafterModel::set_draft(const ArDraftRequest& request) {
  Impl& m = *impl_;
  require(request.gamma >= 1, "ArDrafterModel: gamma must be >= 1");
  request.round.validate(m.cs, m.s.vocab, request.gamma);
  require(request.last_states.size() ==
              static_cast<std::size_t>(request.round.requests()) * m.state_width(),
          "ArDrafterModel: last_states must be requests x state width");
  m.set_round(request.round, request.gamma);
  upload_bf16(m.states, to_bf16_exact(request.last_states));
}

void ArDrafterModel::set_draft_device(const DraftRequest& round, int gamma,
                                      const void* last_states) {
  Impl& m = *impl_;
  require(gamma >= 1, "ArDrafterModel: gamma must be >= 1");
  round.validate(m.cs, m.s.vocab, gamma);
  m.set_round(round, gamma);
  SPARKSIM_CUDA(
      cudaMemcpyAsync(m.states.get(), last_states,
                      static_cast<std::size_t>(round.requests()) * m.state_width() * sizeof(bf16),
                      cudaMemcpyDeviceToDevice, m.stream));
}

void ArDrafterModel::context_update_device(const void* states, const int* next_tokens,
                                           const RaggedBatch& rows, void* after) {
  Impl& m = *impl_;
  rows.validate(m.cs, m.s.vocab);
  const int n = rows.total_tokens();
  const std::vector<int> slot_of = rows.slot_of_token();
  m.reserve(static_cast<std::size_t>(n));
  // Pageable sources: staged before the calls return (as DsparkModel's update).
  upload_async(m.slot, slot_of, m.stream);
  upload_async(m.pos, rows.positions(), m.stream);
  detail::wait_for_stream(m.stream, after);
  SPARKSIM_CUDA(cudaMemcpyAsync(m.states.get(), states,
                                static_cast<std::size_t>(n) * m.state_width() * sizeof(bf16),
                                cudaMemcpyDeviceToDevice, m.stream));
  m.states_to_g(n);
  m.layer_qkv(n, next_tokens, m.slot.get(), m.pos.get());
  m.r_count = 0;  // the update reused the round's index and state buffers: set it again
}

ArDrafterModel::DeviceView ArDrafterModel::device_view() const {
  return {impl_->stream, impl_->tokens.get(), impl_->gamma};
}

// The round's indices and workspaces; the pass-0 states are the caller's to fill.
void ArDrafterModel::Impl::set_round(const DraftRequest& round, int gamma) {
  Impl& m = *this;
  const int r_count = round.requests();
  // Pass k of request r: position context + k, attending to context + k + 1 positions.
  std::vector<int> pos(static_cast<std::size_t>(gamma) * r_count);
  std::vector<int> kv(pos.size());
  for (int k = 0; k < gamma; ++k) {
    for (int r = 0; r < r_count; ++r) {
      pos[static_cast<std::size_t>(k) * r_count + r] = round.context_lens[r] + k;
      kv[static_cast<std::size_t>(k) * r_count + r] = round.context_lens[r] + k + 1;
    }
  }
  m.reserve(static_cast<std::size_t>(r_count));
  upload_async(m.slot, round.slots, m.stream);
  upload_async(m.pos, pos, m.stream);
  upload_async(m.kv_len, kv, m.stream);
  upload_async(m.next, round.anchors, m.stream);
  if (round.temperature > 0) upload_async(m.uniforms, round.uniforms, m.stream);
  SPARKSIM_CUDA(cudaStreamSynchronize(m.stream));  // pageable temporaries
  const auto t = static_cast<std::size_t>(r_count) * gamma;
  m.prev.reserve(static_cast<std::size_t>(r_count));
  m.tokens.reserve(t);
  m.logits.reserve(t * m.head_vocab);
  m.p_draft.reserve(t * m.head_vocab);
  m.hidden_all.reserve(t * m.s.hidden);
  m.r_count = r_count;
  m.gamma = gamma;
  m.temperature = round.temperature;
}

void ArDrafterModel::run() {
  Impl& m = *impl_;
  require(m.r_count > 0, "ArDrafterModel::run: no round set");
  const TransformerShape& s = m.s;
  const int r = m.r_count;
  const int h = s.hidden;
  const auto eps = static_cast<float>(s.rms_eps);
  const RowLayout rows{1, h, 0};
  const cudaStream_t st = m.stream;
  SPARKSIM_CUDA(
      cudaMemcpyAsync(m.prev.get(), m.next.get(), r * sizeof(int), cudaMemcpyDeviceToDevice, st));
  m.states_to_g(r);
  for (int k = 0; k < m.gamma; ++k) {
    const int* pos = m.pos.get() + static_cast<std::size_t>(k) * r;
    m.layer_qkv(r, m.prev.get(), m.slot.get(), pos);
    detail::launch_ragged_attention(
        m.qkv.get(), s.qkv_width(), m.k_cache.get(), m.v_cache.get(), 0, m.slot_stride(),
        s.kv_width(), m.slot.get(), m.kv_len.get() + static_cast<std::size_t>(k) * r, r, s.q_heads,
        s.q_heads / s.kv_heads, s.head_dim, m.attn.get(), s.q_width(), st);
    detail::gemm_bf16(m.cublas, m.attn.get(), m.layer.wo.get(), m.x.get(), true, r, h, s.q_width(),
                      1.0f);
    detail::launch_rms_norm<float>(m.x.get(), rows, m.layer.ffn_norm.get(), r, h, eps,
                                   m.normed.get(), rows, st);
    detail::gemm_bf16(m.cublas, m.normed.get(), m.layer.w_gate_up.get(), m.gate_up.get(), false, r,
                      2 * s.ffn, h, 0.0f);
    detail::launch_swiglu(m.gate_up.get(), r, s.ffn, m.act.get(), st);
    detail::gemm_bf16(m.cublas, m.act.get(), m.layer.w_down.get(), m.x.get(), true, r, h, s.ffn,
                      1.0f);
    // The pass's output: kept per (request, pass), and the next pass's g.
    SPARKSIM_CUDA(cudaMemcpy2DAsync(
        m.hidden_all.get() + static_cast<std::size_t>(k) * h,
        static_cast<std::size_t>(m.gamma) * h * 4, m.x.get(), static_cast<std::size_t>(h) * 4,
        static_cast<std::size_t>(h) * 4, r, cudaMemcpyDeviceToDevice, st));
    SPARKSIM_CUDA(cudaMemcpyAsync(m.g.get(), m.x.get(), static_cast<std::size_t>(r) * h * 4,
                                  cudaMemcpyDeviceToDevice, st));
    detail::launch_rms_norm<float>(m.x.get(), rows, m.out_norm.get(), r, h, eps, m.normed.get(),
                                   rows, st);
    detail::gemm_bf16(m.cublas, m.normed.get(), m.head,
                      m.logits.get() + static_cast<std::size_t>(k) * m.head_vocab, true, r,
                      m.head_vocab, h, 0.0f, m.gamma * m.head_vocab);
    detail::launch_markov_sample(m.logits.get(), r, m.gamma, k, m.head_vocab,
                                 static_cast<float>(m.temperature),
                                 m.temperature > 0 ? m.uniforms.get() : nullptr, m.p_draft.get(),
                                 m.tokens.get(), m.prev.get(), st);
    if (m.family == ArFamily::kEagle3) {
      map_tokens_kernel<<<(r + kThreads - 1) / kThreads, kThreads, 0, st>>>(
          m.tokens.get(), m.prev.get(), m.d2t.get(), r, m.gamma, k);
      SPARKSIM_LAUNCHED();
    }
  }
}

GpuArDraftResult ArDrafterModel::results() const {
  const Impl& m = *impl_;
  require(m.r_count > 0, "ArDrafterModel::results: no round set");
  SPARKSIM_CUDA(cudaStreamSynchronize(m.stream));
  const auto t = static_cast<std::size_t>(m.r_count) * m.gamma;
  GpuArDraftResult out;
  out.tokens = m.tokens.download(t);
  out.logits = m.logits.download(t * m.head_vocab);
  out.p_draft = m.p_draft.download(t * m.head_vocab);
  out.hidden = m.hidden_all.download(t * m.s.hidden);
  return out;
}

double ArDrafterModel::run_timed_us() {
  return impl_->timer.time_us(impl_->stream, [this] { run(); });
}

}  // namespace sparksim::kernels::gpu
