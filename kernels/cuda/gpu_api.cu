// The host interface of kernels/gpu_kernels.hpp on CUDA: device queries, cuBLAS GEMMs, the
// upload-launch-download wrappers used by the comparisons, the copy bandwidth (VerifyModel is in
// verify_model.cu, DsparkModel in dspark_model.cu).
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "kernels/cuda/device_stream.cuh"
#include "kernels/cuda/launchers.cuh"
#include "kernels/gpu_kernels.hpp"

namespace sparksim::kernels::gpu {

using detail::bf16;
using detail::DeviceBuffer;
using detail::download_bf16;
using detail::require;
using detail::RowLayout;
using detail::upload_bf16;

bool built_with_cuda() {
  return true;
}

int device_count() {
  int count = 0;
  // Without a driver this returns cudaErrorInsufficientDriver (35) or cudaErrorNoDevice (100).
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  cudaGetLastError();
  return count;
}

std::string device_summary() {
  if (device_count() == 0) return "";
  cudaDeviceProp p{};
  SPARKSIM_CUDA(cudaGetDeviceProperties(&p, 0));
  int driver = 0;
  int runtime = 0;
  SPARKSIM_CUDA(cudaDriverGetVersion(&driver));
  SPARKSIM_CUDA(cudaRuntimeGetVersion(&runtime));
  int clock_khz = 0;
  int mem_clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
  char buffer[512];
  std::snprintf(buffer, sizeof buffer,
                "%s, %d SMs, cc %d.%d, %.1f GiB, SM clock %d MHz, memory clock %d MHz, driver "
                "%d, runtime %d, cuBLAS %d",
                p.name, p.multiProcessorCount, p.major, p.minor,
                static_cast<double>(p.totalGlobalMem) / (1 << 30), clock_khz / 1000,
                mem_clock_khz / 1000, driver, runtime, CUBLAS_VERSION);
  return buffer;
}

namespace detail {

void gemm_bf16(cublasHandle_t handle, const bf16* a, const bf16* w, void* c, bool c_is_fp32, int m,
               int n, int k, float beta, int ldc) {
  if (m == 0) return;
  const float alpha = 1.0f;
  // Row-major C = A W^T is column-major C^T = W^T(op T of W's column-major [k x n]) A.
  SPARKSIM_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, w, CUDA_R_16BF, k,
                               a, CUDA_R_16BF, k, &beta, c, c_is_fp32 ? CUDA_R_32F : CUDA_R_16BF,
                               ldc > 0 ? ldc : n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace detail

namespace {

void require_device() {
  if (device_count() == 0) throw std::runtime_error("no CUDA device");
}

// A cuBLAS handle for the calling wrapper; created only after a device was found.
class Cublas {
 public:
  Cublas() { SPARKSIM_CUBLAS(cublasCreate(&handle_)); }
  ~Cublas() { cublasDestroy(handle_); }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

template <class T>
DeviceBuffer<T> to_device(const std::vector<T>& host) {
  DeviceBuffer<T> d;
  d.upload(host);
  return d;
}

// A host cache on the device for one wrapper call, with the batch's per-token cache slot,
// position and attended length (causal: its own position + 1), for the kernels.
struct DeviceCacheCall {
  DeviceBuffer<bf16> k, v;
  DeviceBuffer<int> slot, pos, kv_len;
  DeviceCacheCall(const HostKvCache& cache, const RaggedBatch& b) {
    upload_bf16(k, cache.k);
    upload_bf16(v, cache.v);
    const std::vector<int> positions = b.positions();
    const std::vector<int> req = b.request_of_token();
    std::vector<int> slots(req.size());
    std::vector<int> lengths(req.size());
    for (std::size_t t = 0; t < req.size(); ++t) {
      slots[t] = b.slots[req[t]];
      lengths[t] = positions[t] + 1;
    }
    slot.upload(slots);
    pos.upload(positions);
    kv_len.upload(lengths);
  }
  void download_into(HostKvCache& cache) const {
    cache.k = download_bf16(k.get(), cache.k.size());
    cache.v = download_bf16(v.get(), cache.v.size());
  }
};

}  // namespace

std::vector<float> rms_norm(const std::vector<float>& x, const std::vector<float>& gain, int rows,
                            int n, double eps) {
  require(rows >= 0 && n > 0 && x.size() == static_cast<std::size_t>(rows) * n &&
              gain.size() == static_cast<std::size_t>(n),
          "rms_norm: x must be rows x n and gain n");
  require_device();
  DeviceBuffer<bf16> dx;
  DeviceBuffer<bf16> dg;
  upload_bf16(dx, x);
  upload_bf16(dg, gain);
  DeviceBuffer<bf16> dy(x.size());
  const RowLayout plain{1, n, 0};
  detail::launch_rms_norm<bf16>(dx.get(), plain, dg.get(), rows, n, static_cast<float>(eps),
                                dy.get(), plain, nullptr);
  return download_bf16(dy.get(), x.size());
}

std::vector<float> rope(const std::vector<float>& x, const std::vector<int>& positions, int heads,
                        int head_dim, double theta) {
  const auto tokens = static_cast<int>(positions.size());
  require(heads > 0 && head_dim > 0 && head_dim % 2 == 0 &&
              x.size() == static_cast<std::size_t>(tokens) * heads * head_dim,
          "rope: x must be tokens x heads x head_dim, head_dim even");
  require_device();
  DeviceBuffer<bf16> dx;
  upload_bf16(dx, x);
  auto dpos = to_device(positions);
  detail::launch_rope(dx.get(), RowLayout{heads, static_cast<long long>(heads) * head_dim, 0},
                      dpos.get(), tokens * heads, head_dim, theta, nullptr);
  return download_bf16(dx.get(), x.size());
}

void kv_append(const std::vector<float>& k_new, const std::vector<float>& v_new,
               const RaggedBatch& batch, int layer, HostKvCache& cache) {
  const KvCacheShape& cs = cache.shape;
  const int kv_width = cs.kv_heads * cs.head_dim;
  batch.validate(cs, 1 << 30);
  require(layer >= 0 && layer < cs.layers, "kv_append: layer out of range");
  require(k_new.size() == static_cast<std::size_t>(batch.total_tokens()) * kv_width &&
              v_new.size() == k_new.size(),
          "kv_append: k_new and v_new must be tokens x kv_width");
  require_device();
  DeviceCacheCall d(cache, batch);
  DeviceBuffer<bf16> dk, dv;
  upload_bf16(dk, k_new);
  upload_bf16(dv, v_new);
  detail::launch_kv_append(dk.get(), dv.get(), kv_width, batch.total_tokens(), d.slot.get(),
                           d.pos.get(), d.k.get(), d.v.get(), cs.offset(layer, 0, 0),
                           static_cast<long long>(cs.max_tokens) * kv_width, kv_width, nullptr);
  d.download_into(cache);
}

std::vector<float> qk_norm_rope_kv_append(const std::vector<float>& qkv,
                                          const std::vector<float>& q_norm,
                                          const std::vector<float>& k_norm,
                                          const RaggedBatch& batch, int layer, int q_heads,
                                          double eps, double theta, HostKvCache& cache) {
  const KvCacheShape& cs = cache.shape;
  const int hd = cs.head_dim;
  const int kv_width = cs.kv_heads * hd;
  batch.validate(cs, 1 << 30);
  require(layer >= 0 && layer < cs.layers, "qk_norm_rope_kv_append: layer out of range");
  require(q_heads > 0 && hd % 2 == 0 && q_norm.size() == static_cast<std::size_t>(hd) &&
              k_norm.size() == q_norm.size(),
          "qk_norm_rope_kv_append: q_heads > 0, head_dim even, gains of head_dim values");
  const auto row = static_cast<std::size_t>(q_heads) * hd + 2 * static_cast<std::size_t>(kv_width);
  require(qkv.size() == static_cast<std::size_t>(batch.total_tokens()) * row,
          "qk_norm_rope_kv_append: qkv must be tokens x (q_heads + 2 kv_heads) x head_dim");
  require_device();
  DeviceCacheCall d(cache, batch);
  DeviceBuffer<bf16> dqkv, dq_norm, dk_norm;
  upload_bf16(dqkv, qkv);
  upload_bf16(dq_norm, q_norm);
  upload_bf16(dk_norm, k_norm);
  detail::launch_qk_norm_rope_kv_append(
      dqkv.get(), batch.total_tokens(), q_heads, cs.kv_heads, hd, dq_norm.get(), dk_norm.get(),
      static_cast<float>(eps), theta, d.slot.get(), d.pos.get(), d.k.get(), d.v.get(),
      cs.offset(layer, 0, 0), static_cast<long long>(cs.max_tokens) * kv_width, nullptr);
  d.download_into(cache);
  const std::vector<float> rows = download_bf16(dqkv.get(), qkv.size());
  std::vector<float> q;
  const std::size_t q_width = static_cast<std::size_t>(q_heads) * hd;
  for (std::size_t t = 0; t < static_cast<std::size_t>(batch.total_tokens()); ++t) {
    q.insert(q.end(), rows.begin() + t * row, rows.begin() + t * row + q_width);
  }
  return q;
}

std::vector<float> ragged_attention(const std::vector<float>& q, const HostKvCache& cache,
                                    int layer, const RaggedBatch& batch, int q_heads) {
  const KvCacheShape& cs = cache.shape;
  const int kv_width = cs.kv_heads * cs.head_dim;
  batch.validate(cs, 1 << 30);
  require(layer >= 0 && layer < cs.layers, "attention: layer out of range");
  require(q_heads > 0 && q_heads % cs.kv_heads == 0, "attention: q_heads must divide by kv_heads");
  const long long q_width = static_cast<long long>(q_heads) * cs.head_dim;
  require(q.size() == static_cast<std::size_t>(batch.total_tokens() * q_width),
          "attention: q must be tokens x q_heads x head_dim");
  require_device();
  const DeviceCacheCall d(cache, batch);
  DeviceBuffer<bf16> dq;
  upload_bf16(dq, q);
  DeviceBuffer<bf16> out(q.size());
  detail::launch_ragged_attention(dq.get(), q_width, d.k.get(), d.v.get(), cs.offset(layer, 0, 0),
                                  static_cast<long long>(cs.max_tokens) * kv_width, kv_width,
                                  d.slot.get(), d.kv_len.get(), batch.total_tokens(), q_heads,
                                  q_heads / cs.kv_heads, cs.head_dim, out.get(), q_width, nullptr);
  return download_bf16(out.get(), q.size());
}

std::vector<float> swiglu(const std::vector<float>& gate_up, int tokens, int ffn) {
  require(tokens >= 0 && ffn > 0 && gate_up.size() == 2 * static_cast<std::size_t>(tokens) * ffn,
          "swiglu: gate_up must be tokens x 2 ffn");
  require_device();
  DeviceBuffer<bf16> din;
  upload_bf16(din, gate_up);
  DeviceBuffer<bf16> out(static_cast<std::size_t>(tokens) * ffn);
  detail::launch_swiglu(din.get(), tokens, ffn, out.get(), nullptr);
  return download_bf16(out.get(), out.size());
}

std::vector<float> gemm_bf16(const std::vector<float>& a, const std::vector<float>& w, int m, int n,
                             int k) {
  require(m >= 0 && n > 0 && k > 0 && a.size() == static_cast<std::size_t>(m) * k &&
              w.size() == static_cast<std::size_t>(n) * k,
          "gemm: a must be m x k and w n x k");
  require_device();
  const Cublas cublas;
  DeviceBuffer<bf16> da, dw;
  upload_bf16(da, a);
  upload_bf16(dw, w);
  DeviceBuffer<float> dc(static_cast<std::size_t>(m) * n);
  detail::gemm_bf16(cublas.get(), da.get(), dw.get(), dc.get(), true, m, n, k, 0.0f);
  return dc.download(dc.size());
}

std::vector<float> softmax(const std::vector<float>& logits, int rows, int n, double temperature) {
  require(
      rows >= 0 && n > 0 && temperature > 0 && logits.size() == static_cast<std::size_t>(rows) * n,
      "softmax: logits must be rows x n, temperature > 0");
  require_device();
  auto din = to_device(logits);
  DeviceBuffer<float> out(logits.size());
  detail::launch_softmax(din.get(), rows, n, static_cast<float>(1.0 / temperature), out.get(),
                         nullptr);
  return out.download(out.size());
}

RejectionResult rejection_verify(const RejectionBatch& b) {
  b.validate();
  require_device();
  const int requests = b.requests();
  auto cu = to_device(b.cu_seqlens);
  auto pt = to_device(b.p_target);
  auto pd = to_device(b.p_draft);
  auto tokens = to_device(b.draft_tokens);
  auto au = to_device(b.accept_uniforms);
  auto su = to_device(b.sample_uniforms);
  DeviceBuffer<int> accepted(static_cast<std::size_t>(requests));
  DeviceBuffer<int> committed(static_cast<std::size_t>(requests));
  detail::launch_rejection(cu.get(), requests, b.vocab, pt.get(), pd.get(), tokens.get(), au.get(),
                           su.get(), 0, accepted.get(), committed.get(), nullptr);
  RejectionResult out;
  out.accepted = accepted.download(accepted.size());
  out.committed = committed.download(committed.size());
  return out;
}

CopyBandwidth measure_copy_bandwidth(std::size_t bytes, const SamplingOptions& options) {
  require(bytes > 0, "copy bandwidth: bytes must be positive");
  require_device();
  DeviceBuffer<char> src(bytes);
  DeviceBuffer<char> dst(bytes);
  SPARKSIM_CUDA(cudaMemset(src.get(), 1, bytes));
  detail::EventTimer timer;
  const TimingStats stats = sample_until_stable(
      [&] {
        return timer.time_us(nullptr, [&] {
          SPARKSIM_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice));
        });
      },
      options);
  // Read plus write, as model_shapes.json's copy_tb_s_measured_read_plus_write.
  return {2.0 * static_cast<double>(bytes) / (stats.mean_us * 1e-6) / 1e9, stats};
}

}  // namespace sparksim::kernels::gpu
