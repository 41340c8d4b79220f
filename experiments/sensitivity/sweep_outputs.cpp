// Tier gains and throughputs at tiers from one simulated sweep.
#include "experiments/sensitivity/sweep_outputs.hpp"

#include <limits>

#include "common/json_file.hpp"
#include "experiments/report/slo_analysis.hpp"
#include "experiments/sweep/pareto_experiment.hpp"
#include "experiments/sweep/sweep_analysis.hpp"

namespace sparksim {

std::vector<SweepOutput> sweep_outputs(const SweepConfig& config) {
  std::vector<SweepOutput> out;
  for (const OutputKind kind : {OutputKind::kTierGain, OutputKind::kThroughputAtTier}) {
    for (double tier : config.tiers_tok_s_per_user) {
      for (std::size_t s = 0; s < config.systems.size(); ++s) {
        if (s == *config.baseline) continue;
        const std::string what =
            kind == OutputKind::kTierGain ? "tier gain " : "tok/s/GPU at tier, ";
        out.push_back(
            {kind, s, tier,
             what + config.systems[s].label() + " @ " + format_number(tier) + " tok/s/user"});
      }
    }
  }
  return out;
}

std::vector<double> evaluate_sweep_outputs(const SweepConfig& config,
                                           const RunOptionsAdjuster& adjust,
                                           const std::vector<SweepOutput>& outputs, int jobs) {
  const std::string csv = simulate_points(config, expand_points(config), jobs, false, adjust);
  const SweepAnalysis analysis = analyze_sweep(config, parse_points_csv(csv, "points.csv"));
  const auto outcomes = evaluate_tiers(config, analysis, config.tiers_tok_s_per_user,
                                       *config.baseline, SpeedMetric::kAtPercentile);
  constexpr double kUnmet = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> values;
  for (const SweepOutput& o : outputs) {
    double value = kUnmet;
    for (const TierOutcome& t : outcomes) {
      if (t.system != o.system || t.tier_tok_s_per_user != o.tier) continue;
      if (o.kind == OutputKind::kTierGain) {
        value = t.throughput_ratio_vs_baseline.value_or(kUnmet);
      } else if (t.best) {
        value = analysis.aggregates[*t.best].throughput_tok_s_per_gpu.mean;
      }
    }
    values.push_back(value);
  }
  return values;
}

}  // namespace sparksim
