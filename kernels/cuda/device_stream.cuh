// The stream, cuBLAS handle and event timing every device model (VerifyModel, DsparkModel,
// GreedyStepRunner) and the copy-bandwidth probe share: owned once here, so each model holds a
// DeviceStream and an EventTimer instead of creating and destroying the raw handles itself.
#pragma once

#include <stdexcept>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/model_shape.hpp"

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

}  // namespace sparksim::kernels::gpu::detail
