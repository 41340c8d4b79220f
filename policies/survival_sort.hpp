// Sorting survivals by value only, for async-topk: its capacity search needs the lagged survivals
// in descending order but not who they belong to, and its current-step ranking only the value of
// the K-th best. Three sorts by size: the sorting network (sorting_network.hpp) for the few
// candidates of a small batch, std::sort in between, and an LSD radix sort on the float bits
// (monotone for non-negative floats) for the many candidates of a large batch.
#pragma once

#include <cstddef>
#include <vector>

#include "policies/sorting_network.hpp"

namespace sparksim {

// From this many values on, the radix sort beats std::sort. Measured once on the dev VM with a
// throwaway driver (not kept in bench/), survivals in per-request runs of 7: at 2048 values the
// two tied at about 31 µs, at 4096 the radix sort took 53 µs to std::sort's 69, at 8192 122 to 462.
inline constexpr std::size_t kRadixSortMin = 2048;

// Sorts `values` into descending order (the network up to kNetworkSortMax values, a comparison
// sort below kRadixSortMin, else the radix sort). Every value must be a non-negative float (not
// NaN), as compute_survivals' positive survivals are. `scratch` is working memory kept between
// calls.
void sort_survivals_descending(std::vector<float>& values, std::vector<float>& scratch);

}  // namespace sparksim
