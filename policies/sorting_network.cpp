// Bitonic sorting networks in SSE and AVX2 registers, unrolled at compile time.
//
// Stage (block k, distance j) compares element i with i ^ j and puts the larger first when
// i & k == 0 (descending), last otherwise; after the last block (k = the padded size) all is
// descending. Every index, distance and direction is a template constant, so each network unrolls
// into min, max, shuffle and blend instructions held in registers. Distances of a whole register
// or more pair registers; shorter ones pair lanes of one register through a shuffle.
#include "policies/sorting_network.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <functional>
#include <limits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace sparksim {

#if defined(__SSE2__)
namespace {

// ---- SSE: 4 lanes ----

template <int kBlock, int kDistance, int kReg>
inline void sse_compare_exchange(__m128* v) {
  constexpr bool kDescending = ((4 * kReg) & kBlock) == 0;
  if constexpr (kDistance >= 4) {
    constexpr int kPartner = kReg ^ (kDistance / 4);
    if constexpr (kPartner > kReg) {
      const __m128 hi = _mm_max_ps(v[kReg], v[kPartner]);
      const __m128 lo = _mm_min_ps(v[kReg], v[kPartner]);
      v[kReg] = kDescending ? hi : lo;
      v[kPartner] = kDescending ? lo : hi;
    }
  } else if constexpr (kDistance == 2) {  // lanes (0, 2) and (1, 3); kBlock >= 4
    const __m128 y = _mm_shuffle_ps(v[kReg], v[kReg], _MM_SHUFFLE(1, 0, 3, 2));
    const __m128 hi = _mm_max_ps(v[kReg], y);  // {max02, max13, max02, max13}
    const __m128 lo = _mm_min_ps(v[kReg], y);
    v[kReg] = kDescending ? _mm_movelh_ps(hi, lo) : _mm_movelh_ps(lo, hi);
  } else {  // lanes (0, 1) and (2, 3)
    const __m128 y = _mm_shuffle_ps(v[kReg], v[kReg], _MM_SHUFFLE(2, 3, 0, 1));
    const __m128 hi = _mm_max_ps(v[kReg], y);  // {max01, max01, max23, max23}
    const __m128 lo = _mm_min_ps(v[kReg], y);
    if constexpr (kBlock == 2) {  // pair (0, 1) descending, pair (2, 3) ascending
      const __m128 t =
          _mm_shuffle_ps(hi, lo, _MM_SHUFFLE(2, 0, 2, 0));  // {max01, max23, min01, min23}
      v[kReg] = _mm_shuffle_ps(t, t, _MM_SHUFFLE(1, 3, 2, 0));
    } else {
      const __m128 first = kDescending ? hi : lo;
      const __m128 second = kDescending ? lo : hi;
      const __m128 t = _mm_shuffle_ps(first, second, _MM_SHUFFLE(2, 0, 2, 0));
      v[kReg] = _mm_shuffle_ps(t, t, _MM_SHUFFLE(3, 1, 2, 0));
    }
  }
}

template <int kRegs, int kBlock, int kDistance, int kReg = 0>
inline void sse_stage(__m128* v) {
  sse_compare_exchange<kBlock, kDistance, kReg>(v);
  if constexpr (kReg + 1 < kRegs) sse_stage<kRegs, kBlock, kDistance, kReg + 1>(v);
}

template <int kRegs, int kBlock = 2, int kDistance = 1>
inline void sse_network(__m128* v) {
  sse_stage<kRegs, kBlock, kDistance>(v);
  if constexpr (kDistance > 1) {
    sse_network<kRegs, kBlock, kDistance / 2>(v);
  } else if constexpr (kBlock < 4 * kRegs) {
    sse_network<kRegs, 2 * kBlock, kBlock>(v);
  }
}

template <int kRegs>
void sse_sort(float* values) {
  __m128 v[kRegs];
  for (std::ptrdiff_t p = 0; p < kRegs; ++p) v[p] = _mm_loadu_ps(values + 4 * p);
  sse_network<kRegs>(v);
  for (std::ptrdiff_t p = 0; p < kRegs; ++p) _mm_storeu_ps(values + 4 * p, v[p]);
}

// ---- AVX2: 8 lanes. Every function that touches a 256-bit register carries the target
// attribute (a lambda would not inherit it, hence the recursion over registers). ----

#define SPARKSIM_AVX2 __attribute__((target("avx2")))

// Blend mask for an in-register stage: lane l takes the smaller of its pair when it is the pair's
// lower element in an ascending run, or the upper one in a descending run.
constexpr int lanes_taking_min(int block, int distance, int reg) {
  int mask = 0;
  for (int lane = 0; lane < 8; ++lane) {
    const bool ascending = ((8 * reg + lane) & block) != 0;
    const bool upper = (lane & distance) != 0;
    if (upper != ascending) mask |= 1 << lane;
  }
  return mask;
}

template <int kBlock, int kDistance, int kReg>
SPARKSIM_AVX2 inline void avx2_compare_exchange(__m256* v) {
  if constexpr (kDistance >= 8) {
    constexpr bool kDescending = ((8 * kReg) & kBlock) == 0;
    constexpr int kPartner = kReg ^ (kDistance / 8);
    if constexpr (kPartner > kReg) {
      const __m256 hi = _mm256_max_ps(v[kReg], v[kPartner]);
      const __m256 lo = _mm256_min_ps(v[kReg], v[kPartner]);
      v[kReg] = kDescending ? hi : lo;
      v[kPartner] = kDescending ? lo : hi;
    }
  } else {
    __m256 y;
    if constexpr (kDistance == 4) {
      y = _mm256_permute2f128_ps(v[kReg], v[kReg], 0x01);  // swap the 128-bit halves
    } else if constexpr (kDistance == 2) {
      y = _mm256_shuffle_ps(v[kReg], v[kReg], _MM_SHUFFLE(1, 0, 3, 2));
    } else {
      y = _mm256_shuffle_ps(v[kReg], v[kReg], _MM_SHUFFLE(2, 3, 0, 1));
    }
    const __m256 hi = _mm256_max_ps(v[kReg], y);
    const __m256 lo = _mm256_min_ps(v[kReg], y);
    v[kReg] = _mm256_blend_ps(hi, lo, lanes_taking_min(kBlock, kDistance, kReg));
  }
}

template <int kRegs, int kBlock, int kDistance, int kReg = 0>
SPARKSIM_AVX2 inline void avx2_stage(__m256* v) {
  avx2_compare_exchange<kBlock, kDistance, kReg>(v);
  if constexpr (kReg + 1 < kRegs) avx2_stage<kRegs, kBlock, kDistance, kReg + 1>(v);
}

template <int kRegs, int kBlock = 2, int kDistance = 1>
SPARKSIM_AVX2 inline void avx2_network(__m256* v) {
  avx2_stage<kRegs, kBlock, kDistance>(v);
  if constexpr (kDistance > 1) {
    avx2_network<kRegs, kBlock, kDistance / 2>(v);
  } else if constexpr (kBlock < 8 * kRegs) {
    avx2_network<kRegs, 2 * kBlock, kBlock>(v);
  }
}

// Sorts values[0, n), n <= 8·kRegs, with no padding in memory: lanes at or past n are loaded as
// -inf (a masked load, which never touches memory past n) and not stored back.
template <int kRegs>
SPARKSIM_AVX2 void avx2_sort(float* values, int n) {
  const __m256i count = _mm256_set1_epi32(n);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 padding = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  __m256i inside[kRegs];
  __m256 v[kRegs];
  for (std::ptrdiff_t p = 0; p < kRegs; ++p) {
    inside[p] = _mm256_cmpgt_epi32(
        count, _mm256_add_epi32(lane, _mm256_set1_epi32(static_cast<int>(8 * p))));
    v[p] = _mm256_blendv_ps(padding, _mm256_maskload_ps(values + 8 * p, inside[p]),
                            _mm256_castsi256_ps(inside[p]));
  }
  avx2_network<kRegs>(v);
  for (std::ptrdiff_t p = 0; p < kRegs; ++p) _mm256_maskstore_ps(values + 8 * p, inside[p], v[p]);
}

#undef SPARKSIM_AVX2

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2") != 0;
  return has;
}

}  // namespace
#endif

bool network_has_avx2() {
#if defined(__SSE2__)
  return cpu_has_avx2();
#else
  return false;
#endif
}

void sort_few_descending(float* values, std::size_t n, NetworkIsa isa) {
  if (n <= 1) return;
#if defined(__SSE2__)
  const auto count = static_cast<int>(n);
  if (isa != NetworkIsa::kSse && cpu_has_avx2()) {
    if (n <= 8) {
      avx2_sort<1>(values, count);
    } else if (n <= 16) {
      avx2_sort<2>(values, count);
    } else if (n <= 32) {
      avx2_sort<4>(values, count);
    } else if (n <= 64) {
      avx2_sort<8>(values, count);
    } else {
      avx2_sort<16>(values, count);  // more registers than the CPU has: spills, but no branch
    }
    return;
  }
  // SSE has no masked load: padded with -inf in a copy.
  alignas(16) float padded[kNetworkSortMax];
  const std::size_t size = std::max<std::size_t>(4, std::bit_ceil(n));
  std::copy(values, values + n, padded);
  std::fill(padded + n, padded + size, -std::numeric_limits<float>::infinity());
  if (size == 4) {
    sse_sort<1>(padded);
  } else if (size == 8) {
    sse_sort<2>(padded);
  } else if (size == 16) {
    sse_sort<4>(padded);
  } else if (size == 32) {
    sse_sort<8>(padded);
  } else if (size == 64) {
    sse_sort<16>(padded);
  } else {
    sse_sort<32>(padded);
  }
  std::copy(padded, padded + n, values);
#else
  (void)isa;
  std::sort(values, values + n, std::greater<float>());
#endif
}

}  // namespace sparksim
