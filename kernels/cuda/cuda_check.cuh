// Error checking and device buffers shared by the .cu files: every CUDA and cuBLAS call is
// checked, every launch is followed by a check of the last error, and a failure becomes a
// std::runtime_error naming the call, file and line. A launch check sees only launch errors; a
// fault inside a kernel surfaces at some later call. SPARKSIM_CUDA_SYNC=1 in the environment
// (the debug switch) synchronises after every launch, so the fault is reported at its launch.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kernels/bf16.hpp"

namespace sparksim::kernels::gpu::detail {

using bf16 = __nv_bfloat16;

inline void check_cuda(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                             cudaGetErrorString(e));
  }
}

inline void check_cublas(cublasStatus_t s, const char* call, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                             cublasGetStatusString(s));
  }
}

#define SPARKSIM_CUDA(call) \
  ::sparksim::kernels::gpu::detail::check_cuda((call), #call, __FILE__, __LINE__)
#define SPARKSIM_CUBLAS(call) \
  ::sparksim::kernels::gpu::detail::check_cublas((call), #call, __FILE__, __LINE__)
// The debug switch, read once. Graph capture cannot synchronise, so models run eagerly under it.
inline bool sync_after_launch() {
  static const bool enabled = [] {
    const char* v = std::getenv("SPARKSIM_CUDA_SYNC");
    return v != nullptr && v[0] == '1';
  }();
  return enabled;
}

inline void check_launch(const char* file, int line) {
  check_cuda(cudaGetLastError(), "kernel launch", file, line);
  if (sync_after_launch()) {
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize after a launch", file, line);
  }
}
#define SPARKSIM_LAUNCHED() ::sparksim::kernels::gpu::detail::check_launch(__FILE__, __LINE__)

// An owning device allocation of n elements of T.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), n_(o.n_) {
    o.ptr_ = nullptr;
    o.n_ = 0;
  }

  void resize(std::size_t n) {
    if (n == n_) return;
    release();
    if (n > 0) SPARKSIM_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T)));
    n_ = n;
  }
  // Grows only: workspaces keep their largest size.
  void reserve(std::size_t n) {
    if (n > n_) resize(n);
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }

  void upload(const T* host, std::size_t n) {
    resize(n);
    if (n > 0) SPARKSIM_CUDA(cudaMemcpy(ptr_, host, n * sizeof(T), cudaMemcpyHostToDevice));
  }
  void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }
  std::vector<T> download(std::size_t n) const {
    std::vector<T> host(n);
    if (n > 0) SPARKSIM_CUDA(cudaMemcpy(host.data(), ptr_, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  void release() {
    if (ptr_ != nullptr) cudaFree(ptr_);  // no check: runs in destructors
    ptr_ = nullptr;
    n_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

// bf16-exact host floats to a device bf16 buffer (bit copy, no rounding).
inline void upload_bf16(DeviceBuffer<bf16>& dst, const std::vector<float>& src) {
  std::vector<std::uint16_t> bits(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) bits[i] = bf16_bits(round_to_bf16(src[i]));
  dst.resize(src.size());
  if (!src.empty()) {
    SPARKSIM_CUDA(cudaMemcpy(dst.get(), bits.data(), bits.size() * 2, cudaMemcpyHostToDevice));
  }
}

inline std::vector<float> download_bf16(const bf16* src, std::size_t n) {
  std::vector<std::uint16_t> bits(n);
  if (n > 0) SPARKSIM_CUDA(cudaMemcpy(bits.data(), src, n * 2, cudaMemcpyDeviceToHost));
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t wide = static_cast<std::uint32_t>(bits[i]) << 16;
    std::memcpy(&out[i], &wide, sizeof wide);
  }
  return out;
}

}  // namespace sparksim::kernels::gpu::detail
