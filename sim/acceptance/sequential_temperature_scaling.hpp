// Sequential Temperature Scaling (DSpark paper §3.2.1): one temperature T_k per draft position,
// c_k -> σ(logit(c_k) / T_k), fitted left to right: with T_1..T_{k-1} fixed, T_k minimises the
// ECE of the cumulative product Π_{i<=k} c_i against [accepted >= k] by a 1-D grid search.
// Per position it is a monotone map, so each position's ranking of requests is unchanged.
// Also: the held-out split and the temperatures file that `--acceptance calibrated:sts=PATH`
// loads.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/acceptance/confidence_metrics.hpp"

namespace sparksim {

struct StsOptions {
  // Log-spaced grid of temperatures over [t_min, t_max], then a finer linear grid between the
  // best point's neighbours.
  double t_min = 0.05;
  double t_max = 20.0;
  int grid_points = 241;
  int refine_points = 41;
  // Fit on at most this many rows (every n-th row when there are more), so fitting stays within
  // a few seconds on logs of millions of request-steps.
  std::size_t max_fit_rows = 200'000;
};

// Temperatures T_1..T_γ fitted on `fit`.
std::vector<double> fit_sts_temperatures(const ConfidenceSample& fit,
                                         const StsOptions& options = {});

// Splits rows by request (all steps of a request land on the same side): a request is held out
// when a hash of (request id, seed) falls below `heldout_fraction`. Returns {fit, held-out}.
std::pair<ConfidenceSample, ConfidenceSample> split_by_request(const ConfidenceSample& sample,
                                                               double heldout_fraction,
                                                               std::uint64_t seed);

// The temperatures file: {"format": "sparksim-sts", "version": 1, "gamma": γ,
// "temperatures": [...], ...}; `extra` members (provenance, metrics) are appended. Written
// atomically.
void write_sts_file(const std::string& path, const std::vector<double>& temperatures,
                    const nlohmann::ordered_json& extra);
// Reads the temperatures; InputError `path:line: ...` for a malformed file, a γ other than
// `gamma`, or a temperature that is not a finite number > 0.
std::vector<double> load_sts_temperatures(const std::string& path, int gamma);

}  // namespace sparksim
