// The sweep's points, their run options and shard slices (see the header).
#include "experiments/sweep/sweep_grid.hpp"

#include <charconv>
#include <string_view>

#include "common/input_error.hpp"
#include "experiments/sweep/sweep_config.hpp"

namespace sparksim {

std::vector<SweepPoint> expand_points(const SweepConfig& c) {
  std::vector<SweepPoint> points;
  points.reserve(c.point_count());
  for (std::size_t s = 0; s < c.systems.size(); ++s) {
    for (std::size_t l = 0; l < c.loads.size(); ++l) {
      for (std::size_t k = 0; k < c.seeds.size(); ++k) {
        points.push_back(SweepPoint{points.size(), s, l, k});
      }
    }
  }
  return points;
}

RunOptions point_run_options(const SweepConfig& c, const SweepPoint& p) {
  RunOptions o;
  o.trace_path = c.trace_path;
  o.trace_format = c.trace_format;
  o.domain = c.domain;
  o.spread_buckets = c.spread_buckets;
  o.max_requests = c.max_requests;
  o.synthetic = c.synthetic;
  o.think_time_s = c.think_time_s;
  o.arrival_cv = c.arrival_cv;
  if (c.load_kind == LoadKind::kConcurrency) {
    o.closed_loop_users = static_cast<std::int64_t>(c.loads.at(p.load));
  } else {
    o.rate_scale = c.loads.at(p.load);
  }
  o.profile_path = c.profile_path;
  o.drafter = c.systems.at(p.system).drafter;
  o.policy = c.systems.at(p.system).policy;
  o.acceptance = c.acceptance;
  o.seed = c.seeds.at(p.seed);
  o.engine = c.engine;
  o.max_running = c.max_running;
  o.max_batch_tokens = c.max_batch_tokens;
  o.prefill = c.prefill;
  o.sps = c.systems.at(p.system).sps_own ? c.systems.at(p.system).sps : c.sps;
  o.kv_capacity_tokens = c.kv_capacity_tokens;
  return o;
}

ShardSpec parse_shard_spec(const std::string& text) {
  const auto slash = text.find('/');
  ShardSpec s;
  const auto parse = [](std::string_view v, std::int64_t& out) {
    const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    return ec == std::errc() && ptr == v.data() + v.size() && !v.empty();
  };
  const std::string_view all(text);
  if (slash == std::string::npos || !parse(all.substr(0, slash), s.index) ||
      !parse(all.substr(slash + 1), s.count) || s.count < 1 || s.count > 100000 || s.index < 1 ||
      s.index > s.count) {
    throw InputError("--shard: '" + text + "' must be i/N with 1 <= i <= N <= 100000, e.g. 2/8");
  }
  return s;
}

}  // namespace sparksim
