// Seeded random weights generated on the device, bit-identical to the host generator: both run
// kernels/weight_draw.hpp's value() (splitmix64, 53-bit uniform, one product and one sum), then
// round to float and to bf16, both round-to-nearest-even. This file is compiled with -fmad=false
// (kernels/CMakeLists.txt): nvcc would otherwise contract the product and the sum into one FMA,
// whose single rounding differs from the host's two. Real shapes (16 GB of bf16 for qwen3-8b)
// never pass through host memory; a GPU check compares device-drawn and host-uploaded models.
#include "kernels/cuda/launchers.cuh"
#include "kernels/weight_draw.hpp"

namespace sparksim::kernels::gpu::detail {

namespace {

__global__ void fill_random_kernel(bf16* dst, std::uint64_t n, std::uint64_t key, double center,
                                   double half_width) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    dst[i] = __float2bfloat16_rn(__double2float_rn(weight_draw::value(key, i, center, half_width)));
  }
}

}  // namespace

void launch_fill_random(bf16* dst, std::size_t n, std::uint64_t seed, std::uint64_t tensor_id,
                        double center, double half_width, cudaStream_t stream) {
  if (n == 0) return;
  fill_random_kernel<<<1024, 256, 0, stream>>>(dst, n, weight_draw::tensor_key(seed, tensor_id),
                                               center, half_width);
  SPARKSIM_LAUNCHED();
}

}  // namespace sparksim::kernels::gpu::detail
