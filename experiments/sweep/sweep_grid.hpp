// The grid a sweep config spans: its points (system x load x seed, numbered system-major), the
// `sparksim run` options of each, and the "--shard i/N" slices that split them among machines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/run/run_experiment.hpp"

namespace sparksim {

struct SweepConfig;

// One point of the sweep: indices into systems, loads and seeds. Points are numbered
// system-major, then load, then seed, in the config's order.
struct SweepPoint {
  std::size_t index = 0;
  std::size_t system = 0;
  std::size_t load = 0;
  std::size_t seed = 0;
};
std::vector<SweepPoint> expand_points(const SweepConfig& config);

// The `sparksim run` options of a point (so any point can be re-run by hand).
RunOptions point_run_options(const SweepConfig& config, const SweepPoint& point);

// "--shard i/N": the i-th (1-based) of N slices. Points are dealt round-robin (point p belongs to
// slice p % N + 1), so every slice gets a mix of light and heavy loads.
struct ShardSpec {
  std::int64_t index = 1;  // 1..count
  std::int64_t count = 1;
  bool contains(std::size_t point) const {
    return static_cast<std::int64_t>(point % static_cast<std::size_t>(count)) == index - 1;
  }
};
// Throws InputError("--shard: ...") unless `text` is "i/N" with 1 <= i <= N <= 100000.
ShardSpec parse_shard_spec(const std::string& text);

}  // namespace sparksim
