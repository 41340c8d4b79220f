// timeseries.csv, the per-simulated-second table that `sparksim run` and `sparksim cluster` both
// write: one writer, so the two files have the same columns computed the same way.
#pragma once

#include <string>
#include <vector>

#include "sim/metrics.hpp"

namespace sparksim {

// One row per simulated second: mean running requests, steps, request-steps, verify tokens per
// request-step, τ, output tokens (= throughput in tok/s), completions.
std::string timeseries_csv(const std::vector<PerSecondBin>& bins);

}  // namespace sparksim
