// The gnuplot script that draws the sweep's plots (frontier.png/.svg, frontier_pQ, verify_budget,
// tau) from the seed aggregates, its data inline so that it can be restyled and rerun by hand.
#pragma once

#include <string>

#include "experiments/sweep/sweep_analysis.hpp"
#include "experiments/sweep/sweep_config.hpp"

namespace sparksim {

std::string sweep_gnuplot_script(const SweepConfig& config, const SweepAnalysis& analysis);

}  // namespace sparksim
