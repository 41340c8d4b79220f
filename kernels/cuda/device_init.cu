// Seeded random weights generated on the device, bit-identical to the host generator
// (random_weights.cpp: common/rng.hpp's counter_uniform, rounded to float then to bf16, both
// round-to-nearest-even), so that real shapes (16 GB of bf16 for qwen3-8b) never pass through
// host memory. A GPU check compares a device-initialised model with a host-uploaded one.
#include "kernels/cuda/launchers.cuh"

namespace sparksim::kernels::gpu::detail {

namespace {

__device__ std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

__global__ void fill_random_kernel(bf16* dst, std::uint64_t n, std::uint64_t key, double center,
                                   double half_width) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const double u = static_cast<double>(mix64(key ^ mix64(i)) >> 11) * 0x1.0p-53;
    dst[i] = __float2bfloat16_rn(__double2float_rn(center + half_width * (2.0 * u - 1.0)));
  }
}

}  // namespace

void launch_fill_random(bf16* dst, std::size_t n, std::uint64_t seed, std::uint64_t tensor_id,
                        double center, double half_width, cudaStream_t stream) {
  if (n == 0) return;
  // derive_seed(seed, tensor_id) of common/rng.hpp, on the host.
  const auto host_mix = [](std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
  };
  const std::uint64_t key = host_mix(host_mix(seed) ^ host_mix(tensor_id + 0x632BE59BD9B4E019ULL));
  fill_random_kernel<<<1024, 256, 0, stream>>>(dst, n, key, center, half_width);
  SPARKSIM_LAUNCHED();
}

}  // namespace sparksim::kernels::gpu::detail
