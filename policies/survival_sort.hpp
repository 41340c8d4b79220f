// Sorting survivals by value only, for async-topk's capacity search: the global search needs the
// lagged survivals in descending order but not who they belong to, so a radix sort on the float
// bits (monotone for non-negative floats) replaces a heap merge over the requests, which cost
// O(N log R) sift steps for the N = R·γ candidates of a large batch.
#pragma once

#include <vector>

namespace sparksim {

// Sorts `values` into descending order. Every value must be a non-negative float (not NaN), as
// compute_survivals' positive survivals are. `scratch` is working memory kept between calls.
void sort_survivals_descending(std::vector<float>& values, std::vector<float>& scratch);

}  // namespace sparksim
