// The stream, cuBLAS handle and event timing every device model (VerifyModel, DsparkModel,
// ArDrafterModel, the step runners) and the copy-bandwidth probe share: owned once here, so each
// model holds a DeviceStream and an EventTimer instead of creating and destroying the raw handles
// itself; with them the pieces the models and runners would otherwise each repeat (a layer's
// device weights, stream-ordered uploads, cross-stream ordering, a step's accept outcomes).
#pragma once

#include <stdexcept>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/model_shape.hpp"
#include "kernels/ragged_batch.hpp"
#include "kernels/random_weights.hpp"
#include "kernels/reference/step_ref.hpp"

namespace sparksim::kernels::gpu::detail {

// Shape and argument validation of the host entry points: std::invalid_argument, before any work.
inline void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}

// A blocking stream (ordered after the legacy-stream uploads of weights and caches) with a cuBLAS
// handle bound to it. Destruction waits for the stream's work first.
class DeviceStream {
 public:
  DeviceStream() {
    SPARKSIM_CUDA(cudaStreamCreate(&stream_));
    SPARKSIM_CUBLAS(cublasCreate(&cublas_));
    SPARKSIM_CUBLAS(cublasSetStream(cublas_, stream_));
  }
  ~DeviceStream() {
    if (stream_ != nullptr) cudaStreamSynchronize(stream_);
    if (cublas_ != nullptr) cublasDestroy(cublas_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;
  cudaStream_t stream() const { return stream_; }
  cublasHandle_t cublas() const { return cublas_; }

 private:
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
};

// Two timing events around work enqueued between start() and stop(), possibly on different
// streams (the stop stream must be ordered after the start one).
class EventTimer {
 public:
  EventTimer() {
    SPARKSIM_CUDA(cudaEventCreate(&start_));
    SPARKSIM_CUDA(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    if (stop_ != nullptr) cudaEventSynchronize(stop_);
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stop_ != nullptr) cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start(cudaStream_t stream) { SPARKSIM_CUDA(cudaEventRecord(start_, stream)); }
  void stop(cudaStream_t stream) { SPARKSIM_CUDA(cudaEventRecord(stop_, stream)); }
  // Waits for the stop event; microseconds between the two.
  double elapsed_us() const {
    SPARKSIM_CUDA(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    SPARKSIM_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return 1000.0 * ms;
  }
  // One sample of `enqueue` (which enqueues its work on `stream`), in microseconds.
  template <class Enqueue>
  double time_us(cudaStream_t stream, Enqueue&& enqueue) {
    start(stream);
    enqueue();
    stop(stream);
    return elapsed_us();
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// A model's K and V caches reallocated to `elements` bf16 values each and zeroed on `stream`.
// The old ones are freed first: at real shapes the old and the new caches need not fit together.
inline void allocate_zeroed_kv(DeviceBuffer<bf16>& k, DeviceBuffer<bf16>& v, std::size_t elements,
                               cudaStream_t stream) {
  for (DeviceBuffer<bf16>* cache : {&k, &v}) {
    cache->resize(0);
    cache->resize(elements);
    SPARKSIM_CUDA(cudaMemsetAsync(cache->get(), 0, elements * sizeof(bf16), stream));
  }
}

// The per-token activations of a decoder layer over T tokens, shared by the verify model and the
// drafter (both run the same layer kernels): fp32 residual stream, bf16 everything else.
struct LayerWorkspace {
  DeviceBuffer<float> x;  // [T x hidden] residual stream
  DeviceBuffer<bf16> normed, qkv, attn, gate_up, act;
  // Grows every buffer to hold t tokens (never shrinks: addresses stay while they suffice).
  void reserve_tokens(const TransformerShape& s, std::size_t t) {
    x.reserve(t * s.hidden);
    normed.reserve(t * s.hidden);
    qkv.reserve(t * s.qkv_width());
    attn.reserve(t * s.q_width());
    gate_up.reserve(t * 2 * s.ffn);
    act.reserve(t * s.ffn);
  }
};

// One decoder layer's weights on the device (bf16), as LayerWeights holds them on the host.
struct DeviceLayer {
  DeviceBuffer<bf16> attn_norm, wqkv, q_norm, k_norm, wo, ffn_norm, w_gate_up, w_down;
  DeviceLayer() = default;
  explicit DeviceLayer(const LayerWeights& w) { upload(w); }
  void upload(const LayerWeights& w) {
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

// Host-to-device copy on `stream` (pageable source: it is staged before the call returns).
template <class T>
void upload_async(DeviceBuffer<T>& dst, const std::vector<T>& src, cudaStream_t stream) {
  dst.reserve(src.size());
  if (!src.empty()) {
    SPARKSIM_CUDA(cudaMemcpyAsync(dst.get(), src.data(), src.size() * sizeof(T),
                                  cudaMemcpyHostToDevice, stream));
  }
}

// A non-timing event that orders one stream's later work after another's work so far.
class OrderingEvent {
 public:
  OrderingEvent() { SPARKSIM_CUDA(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~OrderingEvent() {
    if (event_ != nullptr) cudaEventDestroy(event_);  // released once the wait is satisfied
  }
  OrderingEvent(const OrderingEvent&) = delete;
  OrderingEvent& operator=(const OrderingEvent&) = delete;
  // `waiter`'s work enqueued from now on starts after `signaller`'s work enqueued so far.
  void order(cudaStream_t signaller, cudaStream_t waiter) {
    SPARKSIM_CUDA(cudaEventRecord(event_, signaller));
    SPARKSIM_CUDA(cudaStreamWaitEvent(waiter, event_, 0));
  }

 private:
  cudaEvent_t event_ = nullptr;
};

// Orders `stream` after the work enqueued so far on `after` (a cudaStream_t, or nullptr: none).
inline void wait_for_stream(cudaStream_t stream, void* after) {
  if (after == nullptr) return;
  OrderingEvent ready;
  ready.order(static_cast<cudaStream_t>(after), stream);
}

// A step runner's verify-side index and outcome buffers: the batch's cu_seqlens, the target's
// argmax per row, and the accepted count and committed token per request.
struct StepOutcomeBuffers {
  DeviceBuffer<int> cu, argmax, accepted, committed;

  // Grows the buffers for `batch` (r_count requests) and uploads its cu_seqlens on `stream`.
  void prepare(const RaggedBatch& batch, int r_count, cudaStream_t stream) {
    const int t_count = batch.total_tokens();
    cu.reserve(batch.cu_seqlens.size());
    argmax.reserve(static_cast<std::size_t>(t_count));
    accepted.reserve(static_cast<std::size_t>(r_count));
    committed.reserve(static_cast<std::size_t>(r_count));
    SPARKSIM_CUDA(cudaMemcpyAsync(cu.get(), batch.cu_seqlens.data(),
                                  batch.cu_seqlens.size() * sizeof(int), cudaMemcpyHostToDevice,
                                  stream));
  }

  // Downloads the step's results (the drafts are the drafter's [R x gamma] tokens) and advances
  // each request past its accepted drafts and committed token.
  std::vector<StepOutcome> outcomes(const int* draft_tokens, int gamma,
                                    std::vector<SpecRequest>& requests) const {
    const int r_count = static_cast<int>(requests.size());
    const std::vector<int> acc = accepted.download(static_cast<std::size_t>(r_count));
    const std::vector<int> com = committed.download(static_cast<std::size_t>(r_count));
    std::vector<int> drafts(static_cast<std::size_t>(r_count) * gamma);
    SPARKSIM_CUDA(cudaMemcpy(drafts.data(), draft_tokens, drafts.size() * sizeof(int),
                             cudaMemcpyDeviceToHost));
    std::vector<StepOutcome> out(static_cast<std::size_t>(r_count));
    for (int r = 0; r < r_count; ++r) {
      StepOutcome& o = out[r];
      o.accepted = acc[r];
      const auto first = drafts.begin() + static_cast<std::ptrdiff_t>(r) * gamma;
      o.committed.assign(first, first + o.accepted);
      o.committed.push_back(com[r]);
      requests[r].context_len += 1 + o.accepted;
      requests[r].anchor = com[r];
    }
    return out;
  }
};

}  // namespace sparksim::kernels::gpu::detail
