// report.html: one self-contained page (setup, plots as data: URIs, frontier and tier tables,
// every load's numbers). Its style sheet is experiments/report/report.css, embedded at build time.
#pragma once

#include <filesystem>
#include <string>

#include "experiments/sweep/sweep_analysis.hpp"
#include "experiments/sweep/sweep_config.hpp"

namespace sparksim {

// The page for `config`'s sweep; reads the PNG plots from `dir` when `plots`. `producer` names
// the sparksim version that ran the sweep.
std::string sweep_report_html(const SweepConfig& config, const SweepAnalysis& analysis,
                              const std::filesystem::path& dir, bool plots,
                              const std::string& producer);

}  // namespace sparksim
