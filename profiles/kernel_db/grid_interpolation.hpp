// The one interpolation/extrapolation rule every measured-database axis uses (GEMM m, n, k;
// attention batch, context, prompt length), so the rules are stated once:
//  - x on a measured point: that point's value;
//  - x between two measured points: linear interpolation between them;
//  - x above the largest measured point: that point's value scaled by x / x_last (a latency
//    proportional to the work, which holds past the bandwidth/compute knee all these kernels have
//    reached at their largest measured sizes); recorded as outside the grid;
//  - x below the smallest measured point: for a work axis (GEMM n and k: a narrower matrix is
//    proportionally less weight to stream), that point scaled by x / x_first; for a size axis
//    (m, batch, length, whose smallest points sit on the launch-latency floor) that point's
//    value. Both recorded as outside the grid.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "profiles/kernel_db/kernel_latency.hpp"

namespace sparksim {

// Evaluates the rule at x over the ascending measured positions `xs`, reading the value at a
// measured position through `at` (which may itself interpolate along another axis). `axis`
// names the axis in the record ("m", "n", "batch"); `where` says along what (e.g. "gemm.csv at
// n=4096 k=4096"). xs must be non-empty and strictly ascending.
enum class BelowGrid { kHold, kScale };
KernelLatency interpolate_on_grid(const std::vector<std::int64_t>& xs, std::int64_t x,
                                  const std::function<KernelLatency(std::int64_t)>& at,
                                  const std::string& axis, const std::string& where,
                                  BelowGrid below = BelowGrid::kHold);

}  // namespace sparksim
