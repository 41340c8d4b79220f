// What the sweep's CSV tables, gnuplot script and HTML report say alike: number formatting, load
// names, "mean [lo, hi]" cells, which speed metrics get a frontier, and the tier rows.
#pragma once

#include <string>
#include <vector>

#include "experiments/report/slo_analysis.hpp"
#include "experiments/sweep/sweep_analysis.hpp"
#include "experiments/sweep/sweep_config.hpp"

namespace sparksim::report {

// Decimal places of the CSV tables' real numbers.
inline constexpr int kCsvDigits = 6;

// `x` with `digits` decimal places, as printf's %.*f writes it.
std::string fixed_text(double x, int digits);

// The load `load` of the sweep (an index into config.loads) as it is written everywhere.
std::string load_text(const SweepConfig& config, std::size_t load);
// "closed-loop users" or "arrival-rate scale".
std::string load_axis_name(const SweepConfig& config);
// "mean [lo, hi]" for tables; just the mean without a CI (one seed).
std::string with_ci(const SeedStats& stats, int digits);

// The speed metrics with a frontier: p50, and the config's percentile unless it is 50.
std::vector<SpeedMetric> frontier_metrics(const SweepConfig& config);
// "frontier" for p50, "frontier_pQ" for the config's percentile: the plot files' stem.
std::string frontier_file_stem(const SweepConfig& config, SpeedMetric metric);
// "p50 of requests (half of the requests are at least this fast)" and its kin.
std::string speed_description(const SweepConfig& config, SpeedMetric metric);

// The tier table's rows (tier, system, status, tok/s/GPU, tok/s/user, vs baseline, speed vs
// baseline at matched throughput), as the HTML report and the stdout table show them.
std::vector<std::vector<std::string>> tier_rows(const SweepConfig& config,
                                                const SweepAnalysis& analysis,
                                                const std::vector<TierOutcome>& outcomes,
                                                SpeedMetric metric);

// `s` safe as HTML text or a quoted attribute value (& < > " escaped).
std::string html_escape(const std::string& s);

}  // namespace sparksim::report
