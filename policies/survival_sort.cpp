// Descending sorts of survivals by size: the sorting network for a few, an LSD radix sort of
// non-negative floats for many, std::sort between (where clearing and scanning the radix sort's
// 2048-bucket histograms costs more than it saves).
#include "policies/survival_sort.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>

namespace sparksim {

namespace {
constexpr int kBits = 11;  // three passes cover the 32 bits
constexpr std::uint32_t kMask = (1u << kBits) - 1;
}  // namespace

void sort_survivals_descending(std::vector<float>& values, std::vector<float>& scratch) {
  const std::size_t n = values.size();
  if (n <= kNetworkSortMax) {
    sort_few_descending(values.data(), n);
    return;
  }
  if (n < kRadixSortMin) {
    std::sort(values.begin(), values.end(), std::greater<float>());
    return;
  }
  scratch.resize(n);
  std::vector<float>* from = &values;
  std::vector<float>* to = &scratch;
  for (int shift = 0; shift < 32; shift += kBits) {
    std::array<std::uint32_t, kMask + 1> count{};
    // Descending: sort ascending on the complemented bits (larger float = smaller key).
    for (const float v : *from) ++count[(~std::bit_cast<std::uint32_t>(v) >> shift) & kMask];
    std::uint32_t at = 0;
    for (auto& c : count) {
      const std::uint32_t here = c;
      c = at;
      at += here;
    }
    for (const float v : *from)
      (*to)[count[(~std::bit_cast<std::uint32_t>(v) >> shift) & kMask]++] = v;
    std::swap(from, to);
  }
  if (from != &values) values.swap(scratch);  // three passes: the result sits in scratch
}

}  // namespace sparksim
