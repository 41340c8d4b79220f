// The sweep's CSV tables (aggregates.csv, frontier.csv, slo.csv) and the tier table printed on
// stdout. Columns are documented in docs/cli.md.
#pragma once

#include <string>
#include <vector>

#include "experiments/report/slo_analysis.hpp"
#include "experiments/sweep/sweep_analysis.hpp"
#include "experiments/sweep/sweep_config.hpp"

namespace sparksim {

std::string aggregates_csv(const SweepConfig& config, const SweepAnalysis& analysis);
std::string frontier_csv(const SweepConfig& config, const SweepAnalysis& analysis);
// slo.csv: one row per (tier, system).
std::string tiers_csv(const SweepConfig& config, const SweepAnalysis& analysis,
                      const std::vector<TierOutcome>& outcomes, SpeedMetric metric);
// The same as an aligned text table (for stdout), one line per (tier, system).
std::string tiers_table(const SweepConfig& config, const SweepAnalysis& analysis,
                        const std::vector<TierOutcome>& outcomes, SpeedMetric metric);

}  // namespace sparksim
