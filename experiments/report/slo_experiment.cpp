// SLA tier runs: sweep (or reuse one), evaluate tiers, write slo.csv.
#include "experiments/report/slo_experiment.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/input_error.hpp"
#include "common/staged_directory.hpp"
#include "common/text_file.hpp"
#include "experiments/report/sweep_report.hpp"
#include "experiments/run/parallel_runner.hpp"
#include "experiments/run/problem_list.hpp"
#include "experiments/sweep/pareto_experiment.hpp"

namespace sparksim {

namespace {

namespace fs = std::filesystem;

}  // namespace

SloResult run_slo(const SloOptions& o) {
  ProblemList problems;
  if (o.config_path.empty() == o.points_dir.empty()) {
    problems.add(
        "give exactly one of --config PATH (simulate a sweep) and --points DIR (reuse "
        "the points of a finished `sparksim pareto` or `merge` output)");
  }
  if (o.out_dir.empty()) problems.add("--out DIR is required");
  if (o.jobs < 0) problems.add("--jobs must be >= 1 (or 0 for every CPU it may use)");
  const double percentile = o.percentile.value_or(50.0);
  if (!(percentile > 0 && percentile < 100)) {
    problems.add("--percentile is " + format_number(percentile) + "; must be in (0, 100)");
  }
  std::vector<double> tiers;
  if (!o.tiers.empty()) problems.check([&] { tiers = parse_tiers(o.tiers); });

  SloResult r;
  std::string points_csv, sweep_json;
  if (!o.config_path.empty()) {
    problems.check([&] { r.config = load_sweep_config(o.config_path); });
  } else if (!o.points_dir.empty()) {
    problems.check([&] {
      const fs::path dir(o.points_dir);
      sweep_json = read_file_bytes(dir / "sweep.json");
      r.config = parse_sweep_json(sweep_json, (dir / "sweep.json").string());
      points_csv = read_file_bytes(dir / "points.csv");
    });
  }
  problems.throw_if_any();

  if (!tiers.empty()) r.config.tiers_tok_s_per_user = tiers;
  if (r.config.tiers_tok_s_per_user.empty()) {
    problems.add("--tiers: no tiers given and " + r.config.path +
                 " has no tiers_tok_s_per_user; e.g. --tiers 80,120");
  }
  if (!o.points_dir.empty()) {
    // Reused points carry p50 and the sweep's own percentile only.
    if (percentile == 50) {
      r.metric = SpeedMetric::kP50;
    } else if (percentile == r.config.percentile) {
      r.metric = SpeedMetric::kAtPercentile;
    } else {
      problems.add("--percentile " + format_number(percentile) + ": the points in " + o.points_dir +
                   " carry tok/s/user at p50 and p" + format_number(r.config.percentile) +
                   " only; simulate with --config to evaluate another percentile");
    }
  } else {
    r.config.percentile = percentile;
    r.metric = SpeedMetric::kAtPercentile;
  }
  problems.check([&] { check_analysis_settings(r.config, r.config.path); });
  problems.throw_if_any();

  if (!o.config_path.empty()) {
    const auto start = std::chrono::steady_clock::now();
    const auto points = expand_points(r.config);
    points_csv =
        simulate_points(r.config, points, o.jobs > 0 ? o.jobs : default_jobs(), o.progress);
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.points_simulated = points.size();
    sweep_json = sweep_json_text(r.config);
  }
  r.analysis = analyze_sweep(r.config, parse_points_csv(points_csv, "points.csv"));
  r.outcomes = evaluate_tiers(r.config, r.analysis, r.config.tiers_tok_s_per_user,
                              *r.config.baseline, r.metric);

  std::string out_dir = fs::path(o.out_dir).lexically_normal().string();
  while (out_dir.size() > 1 && out_dir.back() == '/') out_dir.pop_back();
  StagedDirectory dir(out_dir);
  write_file_bytes(dir.file("sweep.json"), sweep_json);
  write_file_bytes(dir.file("points.csv"), points_csv);
  write_file_bytes(dir.file("aggregates.csv"), aggregates_csv(r.config, r.analysis));
  write_file_bytes(dir.file("slo.csv"), tiers_csv(r.config, r.analysis, r.outcomes, r.metric));
  dir.commit();
  return r;
}

}  // namespace sparksim
