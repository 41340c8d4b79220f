// VerifyModel (gpu_kernels.hpp): the target's verify forward on the device, shaped for timing
// and graph capture. Every buffer a captured graph reads has a fixed address: the index block
// (tokens, slots, positions, attended lengths, logit rows) at a token capacity, the workspaces, a
// cuBLAS workspace set once. set_batch writes the indices into pinned staging (two buffers, each
// reused only once its previous copy has run) and enqueues the copy on the model's stream, so it
// never waits for the device. The KV cache holds one spare slot past the caller's, where padding
// rows of a bucket write and read. Attention is planned per batch (attention_plan.hpp: split-K
// for decode rows, tensor-core tiles for prefill chunks); the packed plan rides in the index block
// and the split-K partials are preallocated, so a bucket's graph replays any batch's plan.
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

#include "kernels/cuda/attention_paths.cuh"
#include "kernels/cuda/device_stream.cuh"
#include "kernels/cuda/launchers.cuh"
#include "kernels/gpu_kernels.hpp"
#include "kernels/verify_rows.hpp"

namespace sparksim::kernels::gpu {

using detail::bf16;
using detail::DeviceBuffer;
using detail::require;
using detail::RowLayout;

namespace {

// cuBLAS's recommended workspace on Hopper; set once, so capture never allocates.
constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;

// Index arrays per token capacity: tokens, slot, pos, kv_len, logit rows.
constexpr int kIndexArrays = 5;

// The caller's cache with one spare slot (the padding rows').
KvCacheShape with_spare_slot(KvCacheShape cache) {
  ++cache.slots;
  return cache;
}

void check_cache_matches(const TransformerShape& s, const KvCacheShape& cache) {
  s.validate();
  require(cache.layers == s.layers && cache.kv_heads == s.kv_heads &&
              cache.head_dim == s.head_dim && cache.slots > 0 && cache.max_tokens > 0,
          "VerifyModel: KV cache shape does not match the model");
}

// Host bf16 bits of bf16-exact floats and back.
std::vector<std::uint16_t> to_bits(const std::vector<float>& v) {
  std::vector<std::uint16_t> bits(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) bits[i] = bf16_bits(round_to_bf16(v[i]));
  return bits;
}

std::vector<float> from_bits(const std::vector<std::uint16_t>& bits) {
  std::vector<float> out(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) {
    const std::uint32_t wide = static_cast<std::uint32_t>(bits[i]) << 16;
    std::memcpy(&out[i], &wide, sizeof wide);
  }
  return out;
}

// Pinned host memory for one staged index block, and the event after its copy.
struct Staging {
  int* host = nullptr;
  std::size_t ints = 0;
  cudaEvent_t copied = nullptr;
  Staging() { SPARKSIM_CUDA(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming)); }
  ~Staging() {
    if (host != nullptr) cudaFreeHost(host);
    if (copied != nullptr) cudaEventDestroy(copied);
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  void reserve(std::size_t n) {
    if (n <= ints) return;
    SPARKSIM_CUDA(cudaEventSynchronize(copied));
    if (host != nullptr) SPARKSIM_CUDA(cudaFreeHost(host));
    host = nullptr;
    SPARKSIM_CUDA(cudaMallocHost(reinterpret_cast<void**>(&host), n * sizeof(int)));
    ints = n;
  }
};

}  // namespace

struct VerifyModel::Impl : detail::LayerWorkspace {
  TransformerShape shape;
  KvCacheShape cache_shape;             // the caller's
  KvCacheShape device_cache;            // plus the spare slot
  DeviceBuffer<char> cublas_workspace;  // before the handle, so it outlives it
  detail::DeviceStream queue;
  const cudaStream_t stream = queue.stream();
  const cublasHandle_t cublas = queue.cublas();
  detail::EventTimer timer;

  using Layer = detail::DeviceLayer;
  DeviceBuffer<bf16> embed, final_norm, lm_head;
  std::vector<Layer> layers;
  DeviceBuffer<bf16> k_cache, v_cache;
  std::size_t weight_bytes = 0;

  // Fixed-capacity buffers (capacity tokens each).
  int capacity = 0;
  DeviceBuffer<int> index_block;       // kIndexArrays x capacity
  DeviceBuffer<float> x_rows, logits;  // and the layer workspace
  DeviceBuffer<bf16> states;           // [capacity x capture_layers * hidden]
  std::vector<int> capture_layers;
  DeviceBuffer<char> l2_flush;
  Staging staging[2];
  int next_staging = 0;

  // The current batch.
  int t_real = 0;
  int t_run = 0;   // tokens the layers run on: the bucket when graphed, else t_real
  int bucket = 0;  // 0: eager
  int n_rows = 0;  // logit rows

  int max_graph_bucket = 0;
  std::vector<int> buckets;
  std::map<int, cudaGraphExec_t> graphs;

  // Planned attention (attention_plan.hpp): the packed plan follows the index arrays in
  // index_block (staged with them); the split-K partials are preallocated for the capacity.
  bool planned_attention = false;
  int sm_count = 1;
  AttentionPlanConfig attention_config;
  AttentionPlanLayout attention_layout;
  DeviceBuffer<float> partial_o, partial_lse;
  std::string attention_summary = "none";

  Impl(const TransformerShape& s, const KvCacheShape& cache) : shape(s) {
    cublas_workspace.resize(kCublasWorkspaceBytes);
    SPARKSIM_CUBLAS(cublasSetWorkspace(cublas, cublas_workspace.get(), kCublasWorkspaceBytes));
    layers.resize(static_cast<std::size_t>(s.layers));
    int device = 0;
    SPARKSIM_CUDA(cudaGetDevice(&device));
    SPARKSIM_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    planned_attention =
        detail::tile_attention_supports(s.head_dim) && !detail::ragged_attention_forced();
    allocate_cache(cache);
  }
  ~Impl() {
    cudaStreamSynchronize(stream);
    drop_graphs();
  }

  void drop_graphs() {
    for (auto& [b, exec] : graphs) cudaGraphExecDestroy(exec);
    graphs.clear();
  }

  void allocate_cache(const KvCacheShape& cache) {
    cache_shape = cache;
    device_cache = with_spare_slot(cache);
    drop_graphs();  // the graphs hold the old cache's addresses
    detail::allocate_zeroed_kv(k_cache, v_cache, static_cast<std::size_t>(device_cache.elements()),
                               stream);
  }

  // Grows every per-token buffer to `tokens`; a growth moves them, so the graphs go.
  void ensure_capacity(int tokens) {
    if (tokens <= capacity) return;
    SPARKSIM_CUDA(cudaStreamSynchronize(stream));  // a queued run may still read the old ones
    drop_graphs();
    capacity = tokens;
    const auto t = static_cast<std::size_t>(tokens);
    const TransformerShape& s = shape;
    attention_layout = attention_plan_layout(tokens, s.q_heads / s.kv_heads, s.kv_heads, sm_count,
                                             attention_config);
    index_block.resize(kIndexArrays * t + static_cast<std::size_t>(attention_layout.ints()));
    const auto partial_rows = static_cast<std::size_t>(attention_layout.token_splits) * s.q_heads;
    partial_o.resize(partial_rows * s.head_dim);
    partial_lse.resize(partial_rows);
    reserve_tokens(s, t);
    x_rows.resize(t * s.hidden);
    logits.resize(t * s.vocab);
    states.resize(t * capture_layers.size() * s.hidden);
  }

  int* index(int array) const {
    return index_block.get() + static_cast<std::size_t>(array) * capacity;
  }
  int* attention_plan() const { return index(kIndexArrays); }

  // Every weight tensor in the generator's order (random_weights.cpp: tensor ids from 1000).
  template <class Fn>
  void for_each_tensor(Fn&& fn) {
    const auto h = static_cast<std::size_t>(shape.hidden);
    const auto v = static_cast<std::size_t>(shape.vocab);
    const auto hd = static_cast<std::size_t>(shape.head_dim);
    fn(embed, v * h, false);
    for (Layer& l : layers) {
      fn(l.attn_norm, h, true);
      fn(l.wqkv, static_cast<std::size_t>(shape.qkv_width()) * h, false);
      fn(l.q_norm, hd, true);
      fn(l.k_norm, hd, true);
      fn(l.wo, h * static_cast<std::size_t>(shape.q_width()), false);
      fn(l.ffn_norm, h, true);
      fn(l.w_gate_up, 2 * static_cast<std::size_t>(shape.ffn) * h, false);
      fn(l.w_down, h * static_cast<std::size_t>(shape.ffn), false);
    }
    fn(final_norm, h, true);
    if (!shape.tied_embeddings) fn(lm_head, v * h, false);
  }

  const bf16* lm_head_ptr() const { return shape.tied_embeddings ? embed.get() : lm_head.get(); }

  // Embedding and decoder layers over t_count tokens of the index block (the capturable part).
  void enqueue_layers(int t_count) {
    const TransformerShape& s = shape;
    const KvCacheShape& cs = device_cache;
    const cudaStream_t st = stream;
    const cublasHandle_t cb = cublas;
    const auto eps = static_cast<float>(s.rms_eps);
    const int hd = s.head_dim;
    const int kv_width = s.kv_width();
    const RowLayout hidden_rows{1, s.hidden, 0};
    const long long slot_stride = static_cast<long long>(cs.max_tokens) * kv_width;
    const int* tokens = index(0);
    const int* token_slot = index(1);
    const int* token_pos = index(2);
    const int* token_kv_len = index(3);

    detail::launch_embed(tokens, t_count, embed.get(), s.hidden, x.get(), st);
    for (int l = 0; l < s.layers; ++l) {
      const Layer& w = layers[l];
      detail::launch_rms_norm<float>(x.get(), hidden_rows, w.attn_norm.get(), t_count, s.hidden,
                                     eps, normed.get(), hidden_rows, st);
      detail::gemm_bf16(cb, normed.get(), w.wqkv.get(), qkv.get(), false, t_count, s.qkv_width(),
                        s.hidden, 0.0f);
      detail::launch_qk_norm_rope_kv_append(qkv.get(), t_count, s.q_heads, s.kv_heads, hd,
                                            w.q_norm.get(), w.k_norm.get(), eps, s.rope_theta,
                                            token_slot, token_pos, k_cache.get(), v_cache.get(),
                                            cs.offset(l, 0, 0), slot_stride, st);
      if (planned_attention) {
        const detail::KvView kv{k_cache.get(), v_cache.get(), cs.offset(l, 0, 0), slot_stride,
                                kv_width};
        detail::launch_planned_attention(
            qkv.get(), s.qkv_width(), kv, attention_plan(), attention_layout, t_count, s.q_heads,
            s.kv_heads, hd, {partial_o.get(), partial_lse.get()}, attn.get(), s.q_width(), st);
      } else {
        detail::launch_ragged_attention(qkv.get(), s.qkv_width(), k_cache.get(), v_cache.get(),
                                        cs.offset(l, 0, 0), slot_stride, kv_width, token_slot,
                                        token_kv_len, t_count, s.q_heads, s.q_heads / s.kv_heads,
                                        hd, attn.get(), s.q_width(), st);
      }
      // beta = 1: the output projection accumulates straight into the fp32 residual stream.
      detail::gemm_bf16(cb, attn.get(), w.wo.get(), x.get(), true, t_count, s.hidden, s.q_width(),
                        1.0f);
      detail::launch_rms_norm<float>(x.get(), hidden_rows, w.ffn_norm.get(), t_count, s.hidden, eps,
                                     normed.get(), hidden_rows, st);
      detail::gemm_bf16(cb, normed.get(), w.w_gate_up.get(), gate_up.get(), false, t_count,
                        2 * s.ffn, s.hidden, 0.0f);
      detail::launch_swiglu(gate_up.get(), t_count, s.ffn, act.get(), st);
      detail::gemm_bf16(cb, act.get(), w.w_down.get(), x.get(), true, t_count, s.hidden, s.ffn,
                        1.0f);
      const auto ids = static_cast<long long>(capture_layers.size());
      for (long long c = 0; c < ids; ++c) {
        if (capture_layers[c] != l) continue;
        detail::launch_store_states(x.get(), t_count, s.hidden, states.get(), ids * s.hidden,
                                    c * s.hidden, st);
      }
    }
  }

  // The rows that need logits, the final norm on them, the LM head on them.
  void enqueue_head() {
    const TransformerShape& s = shape;
    const RowLayout hidden_rows{1, s.hidden, 0};
    detail::launch_gather_rows(x.get(), index(4), n_rows, s.hidden, x_rows.get(), stream);
    detail::launch_rms_norm<float>(x_rows.get(), hidden_rows, final_norm.get(), n_rows, s.hidden,
                                   static_cast<float>(s.rms_eps), normed.get(), hidden_rows,
                                   stream);
    detail::gemm_bf16(cublas, normed.get(), lm_head_ptr(), logits.get(), true, n_rows, s.vocab,
                      s.hidden, 0.0f);
  }

  cudaGraphExec_t graph_for(int b) {
    const auto it = graphs.find(b);
    if (it != graphs.end()) return it->second;
    // One eager pass first: cuBLAS and the kernels initialise lazily (module loads, heuristics),
    // which must not happen inside a capture. It rewrites the same K/V the graph will.
    enqueue_layers(b);
    SPARKSIM_CUDA(cudaStreamSynchronize(stream));
    cudaGraph_t graph = nullptr;
    SPARKSIM_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue_layers(b);
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      if (graph != nullptr) cudaGraphDestroy(graph);
      throw;
    }
    SPARKSIM_CUDA(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    SPARKSIM_CUDA(e);
    graphs.emplace(b, exec);
    return exec;
  }
};

VerifyModel::VerifyModel(const TargetWeights& w, const KvCacheShape& cache) {
  check_cache_matches(w.shape, cache);
  if (device_count() == 0) throw std::runtime_error("no CUDA device");
  impl_ = std::make_unique<Impl>(w.shape, cache);
  Impl& m = *impl_;
  detail::upload_bf16(m.embed, w.embed);
  detail::upload_bf16(m.final_norm, w.final_norm);
  if (!w.shape.tied_embeddings) detail::upload_bf16(m.lm_head, w.lm_head);
  for (std::size_t l = 0; l < w.layers.size(); ++l) m.layers[l].upload(w.layers[l]);
  m.for_each_tensor(
      [&](DeviceBuffer<bf16>& b, std::size_t, bool) { m.weight_bytes += b.size() * sizeof(bf16); });
}

VerifyModel::VerifyModel(const TransformerShape& shape, std::uint64_t seed, double matrix_std,
                         const KvCacheShape& cache) {
  check_cache_matches(shape, cache);
  if (device_count() == 0) throw std::runtime_error("no CUDA device");
  impl_ = std::make_unique<Impl>(shape, cache);
  Impl& m = *impl_;
  std::uint64_t id = 1000;
  const double matrix_half_width = matrix_std * std::sqrt(3.0);
  m.for_each_tensor([&](DeviceBuffer<bf16>& b, std::size_t n, bool gain) {
    b.resize(n);
    detail::launch_fill_random(b.get(), n, seed, id++, gain ? 1.0 : 0.0,
                               gain ? 0.1 : matrix_half_width, m.stream);
    m.weight_bytes += n * sizeof(bf16);
  });
  SPARKSIM_CUDA(cudaStreamSynchronize(m.stream));
}

VerifyModel::~VerifyModel() = default;

const TransformerShape& VerifyModel::shape() const {
  return impl_->shape;
}

std::size_t VerifyModel::weight_bytes() const {
  return impl_->weight_bytes;
}

VerifyModel::DeviceHeads VerifyModel::heads() const {
  return {impl_->embed.get(), impl_->lm_head_ptr()};
}

void VerifyModel::use_planned_attention(bool planned) {
  Impl& m = *impl_;
  SPARKSIM_CUDA(cudaStreamSynchronize(m.stream));
  m.drop_graphs();  // captured with the other attention
  m.planned_attention = planned && detail::tile_attention_supports(m.shape.head_dim);
  m.t_real = 0;  // the staged batch has no plan (or a stale one)
}

std::string VerifyModel::attention_paths() const {
  return impl_->planned_attention ? impl_->attention_summary : "ragged";
}

void VerifyModel::set_capture_layers(const std::vector<int>& layer_ids) {
  Impl& m = *impl_;
  for (int id : layer_ids) {
    require(id >= 0 && id < m.shape.layers, "set_capture_layers: layer id out of range");
  }
  SPARKSIM_CUDA(cudaStreamSynchronize(m.stream));
  m.drop_graphs();  // the graphs were captured with the old stores
  m.capture_layers = layer_ids;
  m.states.resize(static_cast<std::size_t>(m.capacity) * layer_ids.size() * m.shape.hidden);
}

VerifyModel::DeviceView VerifyModel::device_view() const {
  const Impl& m = *impl_;
  return {m.stream, m.index(0), m.logits.get(), m.states.get()};
}

void VerifyModel::upload_kv(const HostKvCache& cache) {
  Impl& m = *impl_;
  const KvCacheShape& cs = m.cache_shape;
  require(cache.shape.elements() == cs.elements(),
          "upload_kv: cache shape differs from the model's");
  SPARKSIM_CUDA(cudaStreamSynchronize(m.stream));
  // Layer by layer: the device layers are one slot longer (the spare slot stays as it is).
  const std::size_t layer_bytes = static_cast<std::size_t>(cs.offset(1, 0, 0)) * sizeof(bf16);
  const std::size_t device_layer_bytes =
      static_cast<std::size_t>(m.device_cache.offset(1, 0, 0)) * sizeof(bf16);
  const std::vector<std::uint16_t> k = to_bits(cache.k);
  const std::vector<std::uint16_t> v = to_bits(cache.v);
  SPARKSIM_CUDA(cudaMemcpy2D(m.k_cache.get(), device_layer_bytes, k.data(), layer_bytes,
                             layer_bytes, static_cast<std::size_t>(cs.layers),
                             cudaMemcpyHostToDevice));
  SPARKSIM_CUDA(cudaMemcpy2D(m.v_cache.get(), device_layer_bytes, v.data(), layer_bytes,
                             layer_bytes, static_cast<std::size_t>(cs.layers),
                             cudaMemcpyHostToDevice));
}

HostKvCache VerifyModel::download_kv() const {
  const Impl& m = *impl_;
  const KvCacheShape& cs = m.cache_shape;
  HostKvCache out(cs);
  SPARKSIM_CUDA(cudaStreamSynchronize(m.stream));
  const std::size_t layer_bytes = static_cast<std::size_t>(cs.offset(1, 0, 0)) * sizeof(bf16);
  const std::size_t device_layer_bytes =
      static_cast<std::size_t>(m.device_cache.offset(1, 0, 0)) * sizeof(bf16);
  std::vector<std::uint16_t> bits(out.k.size());
  SPARKSIM_CUDA(cudaMemcpy2D(bits.data(), layer_bytes, m.k_cache.get(), device_layer_bytes,
                             layer_bytes, static_cast<std::size_t>(cs.layers),
                             cudaMemcpyDeviceToHost));
  out.k = from_bits(bits);
  SPARKSIM_CUDA(cudaMemcpy2D(bits.data(), layer_bytes, m.v_cache.get(), device_layer_bytes,
                             layer_bytes, static_cast<std::size_t>(cs.layers),
                             cudaMemcpyDeviceToHost));
  out.v = from_bits(bits);
  return out;
}

void VerifyModel::resize_kv(const KvCacheShape& cache) {
  check_cache_matches(impl_->shape, cache);
  SPARKSIM_CUDA(cudaStreamSynchronize(impl_->stream));
  impl_->allocate_cache(cache);
  impl_->t_real = 0;  // the current batch was validated against the old cache
}

void VerifyModel::reserve_tokens(int tokens) {
  require(tokens > 0, "reserve_tokens: tokens must be positive");
  impl_->ensure_capacity(tokens);
}

void VerifyModel::use_graphs(int max_bucket) {
  require(max_bucket >= 0, "use_graphs: max_bucket must be >= 0");
  Impl& m = *impl_;
  SPARKSIM_CUDA(cudaStreamSynchronize(m.stream));
  m.drop_graphs();
  m.max_graph_bucket = detail::sync_after_launch() ? 0 : max_bucket;
  m.buckets = graph_buckets(m.max_graph_bucket);
  if (m.max_graph_bucket > 0) m.ensure_capacity(m.buckets.back());
  m.t_real = 0;  // set the batch again: its padding depends on the buckets
}

void VerifyModel::set_batch(const RaggedBatch& batch, const std::vector<bool>& prefill) {
  Impl& m = *impl_;
  batch.validate(m.cache_shape, m.shape.vocab);
  const std::vector<int> rows = logit_rows(batch, prefill);
  const int t_real = batch.total_tokens();
  const int bucket = m.max_graph_bucket > 0 ? graph_bucket_of(t_real, m.buckets) : 0;
  const int t_run = bucket > 0 ? bucket : t_real;
  m.ensure_capacity(t_run);
  // The spare slot (index cache_shape.slots) takes the padding rows.
  const VerifyTokenIndex index = verify_token_index(batch, t_run, m.cache_shape.slots);
  Staging& staging = m.staging[m.next_staging];
  m.next_staging ^= 1;
  const auto cap = static_cast<std::size_t>(m.capacity);
  const auto plan_ints = static_cast<std::size_t>(m.attention_layout.ints());
  std::vector<int> plan;
  if (m.planned_attention) {
    const AttentionPlan p =
        plan_attention(batch, t_run, m.shape.q_heads / m.shape.kv_heads, m.shape.kv_heads,
                       m.sm_count, m.attention_layout, m.attention_config);
    plan = pack_attention_plan(p, m.attention_layout);
    m.attention_summary = describe_attention_plan(p);
  }
  staging.reserve(kIndexArrays * cap + plan_ints);
  // Waits only if this buffer's copy of two batches ago has not run yet.
  SPARKSIM_CUDA(cudaEventSynchronize(staging.copied));
  int* host = staging.host;
  std::memcpy(host, index.tokens.data(), index.tokens.size() * sizeof(int));
  std::memcpy(host + cap, index.slot.data(), index.slot.size() * sizeof(int));
  std::memcpy(host + 2 * cap, index.pos.data(), index.pos.size() * sizeof(int));
  std::memcpy(host + 3 * cap, index.kv_len.data(), index.kv_len.size() * sizeof(int));
  std::memcpy(host + 4 * cap, rows.data(), rows.size() * sizeof(int));
  if (!plan.empty()) std::memcpy(host + kIndexArrays * cap, plan.data(), plan.size() * sizeof(int));
  SPARKSIM_CUDA(cudaMemcpyAsync(m.index_block.get(), host,
                                (kIndexArrays * cap + plan_ints) * sizeof(int),
                                cudaMemcpyHostToDevice, m.stream));
  SPARKSIM_CUDA(cudaEventRecord(staging.copied, m.stream));
  m.t_real = t_real;
  m.t_run = t_run;
  m.bucket = bucket;
  m.n_rows = static_cast<int>(rows.size());
}

void VerifyModel::run() {
  Impl& m = *impl_;
  require(m.t_real > 0, "VerifyModel::run: no batch set");
  if (m.bucket > 0) {
    SPARKSIM_CUDA(cudaGraphLaunch(m.graph_for(m.bucket), m.stream));
  } else {
    m.enqueue_layers(m.t_run);
  }
  m.enqueue_head();
}

int VerifyModel::logit_row_count() const {
  return impl_->n_rows;
}

std::vector<float> VerifyModel::logits() const {
  SPARKSIM_CUDA(cudaStreamSynchronize(impl_->stream));
  return impl_->logits.download(static_cast<std::size_t>(impl_->n_rows) * impl_->shape.vocab);
}

std::vector<float> VerifyModel::forward(const RaggedBatch& batch) {
  set_batch(batch);
  run();
  return logits();
}

double VerifyModel::run_timed_us(std::size_t l2_flush_bytes) {
  Impl& m = *impl_;
  if (l2_flush_bytes > 0) {
    m.l2_flush.reserve(l2_flush_bytes);
    // Outside the timed region, so every sample streams its weights from HBM.
    SPARKSIM_CUDA(cudaMemsetAsync(m.l2_flush.get(), 0, l2_flush_bytes, m.stream));
  }
  return m.timer.time_us(m.stream, [this] { run(); });
}

TimingStats VerifyModel::time_run(const SamplingOptions& options, std::size_t l2_flush_bytes) {
  return sample_until_stable([&] { return run_timed_us(l2_flush_bytes); }, options);
}

}  // namespace sparksim::kernels::gpu
