// The files a complete sweep leaves in its output directory, all derived from points.csv and the
// resolved config (never from wall-clock time or worker count), so a single run and merged shards
// write the same bytes:
//   points.csv      one row per point (written by the caller, read back here)
//   sweep.json      the resolved config, the profile's label, sparksim's version
//   aggregates.csv  each (system, load) over its seeds: mean and 95% CI of the key metrics
//   frontier.csv    each system's Pareto frontier (p50 and the config's percentile), with CIs
//   frontier.png/.svg, frontier_pQ.png/.svg, verify_budget.png/.svg, tau.png/.svg, and the
//   gnuplot/plots.gp script that drew them (data inline)
//   report.html     one self-contained page (images as data: URIs, no external resources)
//   scenarios/<name>/points.csv  (deepseek-v4-* targets with the acceptance scenario left open,
//                   unsharded runs only) the same points under each other named acceptance
//                   scenario, shown in report.html as a band beside the default's result; merged
//                   shards do not run them, and their report says so
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/report/slo_analysis.hpp"
#include "experiments/report/sweep_csv.hpp"
#include "experiments/sweep/sweep_analysis.hpp"
#include "experiments/sweep/sweep_config.hpp"

namespace sparksim {

inline constexpr const char* kSweepOutputSchema = "sparksim.sweep-output/1";

// sweep.json's text for `config` (load_sweep_config's, with its profile label): the resolved
// config plus provenance. Identical for every shard of one sweep.
std::string sweep_json_text(const SweepConfig& config);

// Reads a sweep.json back: the config (structure-checked, no input file opened) with its profile
// label and source restored. Throws InputError(`path:line: ...`).
SweepConfig parse_sweep_json(const std::string& text, const std::string& path);

// "p50" or "p<percentile>" (e.g. "p10", "p2.5") as it names the speed metric in files.
std::string speed_metric_name(const SweepConfig& config, SpeedMetric metric);

// The sweep under every named acceptance scenario (sim/acceptance/acceptance_scenarios.hpp), for
// targets with no published acceptance for a drafter: `scenarios` lists them, the default first
// (its points are the sweep's own), `points_csv` holds each other scenario's points.csv in the
// same order. Empty `scenarios`: no band; `why_none` then says why when the report should
// ("merged shards do not run the scenario band"), "" for targets that take no scenario.
struct SweepScenarioBand {
  std::vector<std::string> scenarios;
  std::vector<std::string> points_csv;
  std::string why_none;
};

// Writes sweep.json (`sweep_json` verbatim: sweep_json_text(config), or a shard's copy of it),
// points.csv (`points_csv` verbatim), aggregates.csv, frontier.csv, the plots (unless !plots)
// and report.html into `dir` (a staging directory the caller commits). Throws InputError when
// the points do not match the config (see analyze_sweep).
// With a band, also scenarios/<name>/points.csv and the band's section in report.html.
void write_sweep_outputs(const SweepConfig& config, const std::string& sweep_json,
                         const std::string& points_csv, const std::filesystem::path& dir,
                         bool plots, const SweepScenarioBand& band = {});

}  // namespace sparksim
