// A bitonic sorting network for a few floats, descending, in SIMD registers: no data-dependent
// branch, where a comparison sort or a k-way merge of the per-request survival lists mispredicts
// about every other comparison. Two builds of the same network: SSE (4 lanes, x86-64's baseline)
// and AVX2 (8 lanes, chosen at run time where the CPU has it). A sort's result is the same
// whichever runs: the values in descending order.
#pragma once

#include <cstddef>

namespace sparksim {

// The most values the network sorts (padded to a power of two). At 70 to 128 values (survivals in
// runs of 7) the AVX2 network took 0.30-0.37 µs, std::sort 1.9-4.1 µs, on the 2-core dev VM.
inline constexpr std::size_t kNetworkSortMax = 128;

enum class NetworkIsa { kBest, kSse, kAvx2 };

// Sorts values[0, n), n <= kNetworkSortMax, into descending order, touching no memory past n. No
// value may be NaN: the network's min and max would not be symmetric. kBest picks AVX2 where the
// CPU has it; asking for an ISA the CPU (or the build) lacks falls back to kBest. Without SSE at
// build time: std::sort.
void sort_few_descending(float* values, std::size_t n, NetworkIsa isa = NetworkIsa::kBest);

// Whether this build and CPU run the AVX2 network (tests report which builds they checked).
bool network_has_avx2();

}  // namespace sparksim
