// report.html: one self-contained page (setup, plots as data: URIs, frontier and tier tables,
// every load's numbers). Its style sheet is experiments/report/report.css, embedded at build time.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "experiments/sweep/sweep_analysis.hpp"
#include "experiments/sweep/sweep_config.hpp"

namespace sparksim {

// The sweep under each named acceptance scenario (the default first, its analysis the sweep's
// own); empty `names`: no band, `why_none` (if any) printed instead.
struct ScenarioAnalyses {
  std::vector<std::string> names;
  std::vector<SweepAnalysis> analyses;  // one per name (at least the sweep's own)
  std::string why_none;
};

// The page for `config`'s sweep; reads the PNG plots from `dir` when `plots`. `producer` names
// the sparksim version that ran the sweep. With scenarios, a section shows each tier's outcome
// under every scenario and the band, the default named.
std::string sweep_report_html(const SweepConfig& config, const SweepAnalysis& analysis,
                              const ScenarioAnalyses& scenarios, const std::filesystem::path& dir,
                              bool plots, const std::string& producer);

}  // namespace sparksim
