// Seed pooling and per-system frontiers.
#include "experiments/sweep/sweep_analysis.hpp"

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "experiments/sweep/pareto_frontier.hpp"

namespace sparksim {

const SeedStats& speed_of(const LoadAggregate& a, SpeedMetric m) {
  return m == SpeedMetric::kP50 ? a.tok_s_per_user_p50 : a.tok_s_per_user_at_percentile;
}

SweepAnalysis analyze_sweep(const SweepConfig& config, const std::vector<PointRecord>& points) {
  const auto expected = expand_points(config);
  std::vector<const PointRecord*> by_index(expected.size(), nullptr);
  for (const auto& p : points) {
    if (p.point >= expected.size()) {
      throw InputError("points.csv: point " + std::to_string(p.point) + " is outside the sweep (" +
                       std::to_string(expected.size()) + " points)");
    }
    if (by_index[p.point] != nullptr) {
      throw InputError("points.csv: point " + std::to_string(p.point) + " appears twice");
    }
    const SweepPoint& e = expected[p.point];
    const SweepSystem& s = config.systems[e.system];
    if (p.drafter != s.drafter || p.policy != s.policy || p.sps != s.sps ||
        p.load != config.loads[e.load] || p.seed != config.seeds[e.seed]) {
      throw InputError("points.csv: point " + std::to_string(p.point) + " is " + p.drafter + " + " +
                       p.policy + " at load " + format_number(p.load) + " seed " +
                       std::to_string(p.seed) + "; the config has " + s.label() + " at load " +
                       format_number(config.loads[e.load]) + " seed " +
                       std::to_string(config.seeds[e.seed]));
    }
    by_index[p.point] = &p;
  }
  for (std::size_t i = 0; i < by_index.size(); ++i) {
    if (by_index[i] == nullptr) {
      throw InputError("points.csv: point " + std::to_string(i) + " of " +
                       std::to_string(by_index.size()) + " is missing");
    }
  }

  SweepAnalysis a;
  const std::size_t seeds = config.seeds.size();
  for (std::size_t s = 0; s < config.systems.size(); ++s) {
    for (std::size_t l = 0; l < config.loads.size(); ++l) {
      const std::size_t first = (s * config.loads.size() + l) * seeds;
      const auto stats = [&](double PointRecord::*field) {
        std::vector<double> v;
        for (std::size_t k = 0; k < seeds; ++k) v.push_back(by_index[first + k]->*field);
        return seed_stats(v);
      };
      LoadAggregate g;
      g.system = s;
      g.load = l;
      g.throughput_tok_s_per_gpu = stats(&PointRecord::throughput_tok_s_per_gpu);
      g.tok_s_per_user_p50 = stats(&PointRecord::tok_s_per_user_p50);
      g.tok_s_per_user_at_percentile = stats(&PointRecord::tok_s_per_user_at_percentile);
      g.running_requests_mean = stats(&PointRecord::running_requests_mean);
      g.tau_mean = stats(&PointRecord::tau_mean);
      g.verify_tokens_per_request_step_mean =
          stats(&PointRecord::verify_tokens_per_request_step_mean);
      g.ttft_ms_p99 = stats(&PointRecord::ttft_ms_p99);
      a.aggregates.push_back(g);
    }
  }
  for (SpeedMetric m : {SpeedMetric::kP50, SpeedMetric::kAtPercentile}) {
    auto& frontiers = m == SpeedMetric::kP50 ? a.frontier_p50 : a.frontier_at_percentile;
    for (std::size_t s = 0; s < config.systems.size(); ++s) {
      std::vector<ParetoPoint> curve;
      for (std::size_t l = 0; l < config.loads.size(); ++l) {
        const auto& g = a.aggregates[s * config.loads.size() + l];
        curve.push_back({speed_of(g, m).mean, g.throughput_tok_s_per_gpu.mean});
      }
      std::vector<std::size_t> indices;
      for (std::size_t l : pareto_frontier(curve)) indices.push_back(s * config.loads.size() + l);
      frontiers.push_back(std::move(indices));
    }
  }
  return a;
}

}  // namespace sparksim
