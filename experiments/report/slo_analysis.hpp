// SLA tiers over a sweep: for each interactivity tier (a per-user speed that a chosen share of
// requests must reach) and each system, the highest simulated throughput per GPU that meets it,
// its ratio to the baseline system, and the per-user speed each system reaches when it serves at
// least the baseline's throughput. Only simulated (seed-mean) operating points are used: no
// interpolation between loads, so every number is one that a sweep point produced.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "experiments/sweep/sweep_analysis.hpp"

namespace sparksim {

// Relative slack when matching throughputs: an open-loop trace replayed at one rate is served at
// that rate by every system below saturation, up to a few tenths of a percent of end-of-run noise;
// without slack a system 0.01% short of the baseline would be compared at its next, slower load.
inline constexpr double kMatchedThroughputTolerance = 0.005;

struct TierOutcome {
  double tier_tok_s_per_user = 0;
  std::size_t system = 0;
  // The aggregate (index into SweepAnalysis::aggregates) with the highest mean throughput per GPU
  // among this system's loads whose mean speed reaches the tier; nullopt when no load does (the
  // tier is unmeetable for this system within the sweep, never reported as zero throughput).
  std::optional<std::size_t> best;
  // The system's fastest load (for "cannot meet: best is X tok/s/user").
  std::size_t fastest = 0;
  // best's throughput / the baseline's best throughput; nullopt when either is unmet.
  std::optional<double> throughput_ratio_vs_baseline;
  // Matched throughput: among this system's loads whose mean throughput per GPU is at least the
  // baseline's best throughput at this tier (less kMatchedThroughputTolerance), the fastest (by
  // the tier's speed metric); nullopt when the baseline misses the tier or the system never
  // reaches that throughput.
  std::optional<std::size_t> matched;
  std::optional<double> speed_ratio_at_matched_throughput;
};

// One outcome per (tier, system), tiers in the given order, systems in the config's order.
// `baseline` indexes config.systems. Pure function of its arguments.
std::vector<TierOutcome> evaluate_tiers(const SweepConfig& config, const SweepAnalysis& analysis,
                                        const std::vector<double>& tiers, std::size_t baseline,
                                        SpeedMetric metric);

// Parses "--tiers 80,120": a comma-separated list of numbers > 0. Throws InputError("--tiers:
// ...").
std::vector<double> parse_tiers(const std::string& text);

}  // namespace sparksim
