// Tier evaluation over seed-mean operating points.
#include "experiments/report/slo_analysis.hpp"

#include <charconv>
#include <cmath>

#include "common/input_error.hpp"

namespace sparksim {

std::vector<TierOutcome> evaluate_tiers(const SweepConfig& config, const SweepAnalysis& analysis,
                                        const std::vector<double>& tiers, std::size_t baseline,
                                        SpeedMetric metric) {
  const std::size_t loads = config.loads.size();
  const auto agg = [&](std::size_t system, std::size_t load) -> const LoadAggregate& {
    return analysis.aggregates.at(system * loads + load);
  };
  const auto speed = [&](const LoadAggregate& a) { return speed_of(a, metric).mean; };
  const auto tput = [](const LoadAggregate& a) { return a.throughput_tok_s_per_gpu.mean; };

  // Highest-throughput load meeting `tier` (ties: the faster one, then the earlier load).
  const auto best_meeting = [&](std::size_t system, double tier) -> std::optional<std::size_t> {
    std::optional<std::size_t> best;
    for (std::size_t l = 0; l < loads; ++l) {
      const auto& a = agg(system, l);
      if (!(speed(a) >= tier)) continue;
      if (!best) {
        best = l;
        continue;
      }
      const auto& b = agg(system, *best);
      if (tput(a) > tput(b) || (tput(a) == tput(b) && speed(a) > speed(b))) best = l;
    }
    if (!best) return std::nullopt;
    return system * loads + *best;
  };

  std::vector<TierOutcome> out;
  for (double tier : tiers) {
    const auto base = best_meeting(baseline, tier);
    for (std::size_t s = 0; s < config.systems.size(); ++s) {
      TierOutcome o;
      o.tier_tok_s_per_user = tier;
      o.system = s;
      o.best = best_meeting(s, tier);
      std::size_t fastest = 0;
      for (std::size_t l = 1; l < loads; ++l) {
        if (speed(agg(s, l)) > speed(agg(s, fastest))) fastest = l;
      }
      o.fastest = s * loads + fastest;
      if (o.best && base && tput(analysis.aggregates[*base]) > 0) {
        o.throughput_ratio_vs_baseline =
            tput(analysis.aggregates[*o.best]) / tput(analysis.aggregates[*base]);
      }
      if (base) {
        const double target =
            tput(analysis.aggregates[*base]) * (1.0 - kMatchedThroughputTolerance);
        std::optional<std::size_t> matched;
        for (std::size_t l = 0; l < loads; ++l) {
          const auto& a = agg(s, l);
          if (!(tput(a) >= target)) continue;
          if (!matched || speed(a) > speed(analysis.aggregates[*matched])) matched = s * loads + l;
        }
        o.matched = matched;
        const double base_speed = speed(analysis.aggregates[*base]);
        if (matched && base_speed > 0) {
          o.speed_ratio_at_matched_throughput = speed(analysis.aggregates[*matched]) / base_speed;
        }
      }
      out.push_back(o);
    }
  }
  return out;
}

std::vector<double> parse_tiers(const std::string& text) {
  std::vector<double> tiers;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(pos, comma - pos);
    double v = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() ||
        !std::isfinite(v) || !(v > 0)) {
      throw InputError("--tiers: '" + item +
                       "' is not a number > 0; give tok/s/user tiers like 80,120");
    }
    tiers.push_back(v);
    pos = comma + 1;
  }
  return tiers;
}

}  // namespace sparksim
