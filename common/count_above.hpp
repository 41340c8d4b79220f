// count_above: how many of a few floats exceed a bound, four per SSE compare and with no
// data-dependent branch. Used where a loop "while (values[k] > bound)" would mispredict its exit
// on random data: the hidden acceptance count of a drafted block, greedy's sure-admission prefix.
#pragma once

#include <algorithm>
#include <cstdint>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace sparksim {

// #{k < n : values[k] > bound} (false for NaN on either side). Reads up to 3 floats past n, which
// the caller must own (their values do not matter).
inline int count_above(const float* values, int n, float bound) {
#if defined(__SSE2__)
  static constexpr std::uint8_t kBitsSet[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  static constexpr int kLanes[5] = {0, 1, 3, 7, 15};  // lanes still inside the n values
  const __m128 b = _mm_set1_ps(bound);
  int count = 0;
  for (int k = 0; k < n; k += 4) {
    const int above = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(values + k), b));
    count += kBitsSet[above & kLanes[std::min(n - k, 4)]];
  }
  return count;
#else
  int count = 0;
  for (int k = 0; k < n; ++k) count += values[k] > bound ? 1 : 0;
  return count;
#endif
}

}  // namespace sparksim
