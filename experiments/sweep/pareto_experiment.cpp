// Sweep orchestration: validation, parallel simulation, shard outputs and merging.
#include "experiments/sweep/pareto_experiment.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/staged_directory.hpp"
#include "common/text_file.hpp"
#include "experiments/report/gnuplot.hpp"
#include "experiments/report/sweep_report.hpp"
#include "experiments/run/parallel_runner.hpp"
#include "experiments/run/problem_list.hpp"
#include "experiments/sweep/progress_meter.hpp"
#include "experiments/sweep/sweep_points.hpp"
#include "profiles/profile_io.hpp"
#include "sim/acceptance/acceptance_scenarios.hpp"

namespace sparksim {

namespace {

namespace fs = std::filesystem;

constexpr const char* kShardSchema = "sparksim.sweep-shard/1";

// "out/demo/" and "out/demo" name the same directory (StagedDirectory wants no trailing slash).
std::string normalise_dir(const std::string& dir) {
  std::string d = fs::path(dir).lexically_normal().string();
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d;
}

}  // namespace

std::string simulate_points(const SweepConfig& config, const std::vector<SweepPoint>& points,
                            int jobs, bool progress, const RunOptionsAdjuster& adjust) {
  std::vector<std::string> rows(points.size());
  ProgressMeter meter("sweep", static_cast<std::int64_t>(points.size()),
                      progress && stderr_is_terminal());
  run_in_parallel(points.size(), jobs, [&](std::size_t i) {
    rows[i] = run_sweep_point(config, points[i], adjust);
    meter.tick();
  });
  meter.finish();
  std::string text = points_csv_header();
  for (const auto& r : rows) text += r;
  return text;
}

namespace {

// The sweep's points under every other named acceptance scenario when its target takes scenarios
// and its acceptance leaves the scenario open (scenario_band): the band report.html shows.
SweepScenarioBand scenario_points(const SweepConfig& c, const std::vector<SweepPoint>& points,
                                  int jobs, bool progress) {
  SweepScenarioBand band;
  const ScenarioBand b = scenario_band(load_profile(c.profile_path).target, c.acceptance);
  if (b.scenarios.empty()) return band;
  band.scenarios = b.scenarios;
  for (std::size_t k = 1; k < b.scenarios.size(); ++k) {
    const std::string acceptance = acceptance_under_scenario(c.acceptance, b.scenarios[k]);
    band.points_csv.push_back(simulate_points(
        c, points, jobs, progress, [acceptance](RunOptions& o) { o.acceptance = acceptance; }));
  }
  return band;
}

// What a merged report says in place of the band, for a sweep whose target takes scenarios.
std::string merged_band_note(const SweepConfig& c) {
  try {
    if (scenario_band(load_profile(c.profile_path).target, c.acceptance).scenarios.empty()) {
      return "";
    }
  } catch (const InputError&) {
    return "";  // the profile is not where the shards ran: nothing to say about its target
  }
  return "Merged shards do not run the acceptance scenario band: run sparksim pareto without "
         "--shard (or sparksim v4-topologies) to see this comparison under every named "
         "scenario.";
}

}  // namespace

SweepRunResult run_pareto(const ParetoOptions& o) {
  // Command-line problems and config problems together, before anything runs.
  ProblemList problems;
  if (o.config_path.empty()) problems.add("--config PATH is required");
  if (o.out_dir.empty()) problems.add("--out DIR is required");
  if (o.jobs < 0) problems.add("--jobs must be >= 1 (or 0 for every CPU it may use)");
  std::optional<ShardSpec> shard;
  if (!o.shard.empty()) problems.check([&] { shard = parse_shard_spec(o.shard); });
  if (o.plots && !shard) problems.check([] { require_gnuplot(); });
  SweepConfig config;
  if (!o.config_path.empty()) {
    problems.check([&] {
      config = load_sweep_config(o.config_path);
      if (o.percentile) config.percentile = *o.percentile;
      if (o.tiers) config.tiers_tok_s_per_user = *o.tiers;
      if (o.percentile || o.tiers) check_analysis_settings(config, o.config_path);
    });
  }
  problems.throw_if_any();

  std::vector<SweepPoint> points = expand_points(config);
  if (shard) {
    std::vector<SweepPoint> mine;
    for (const auto& p : points) {
      if (shard->contains(p.index)) mine.push_back(p);
    }
    points = std::move(mine);
  }
  SweepRunResult result;
  result.jobs = o.jobs > 0 ? o.jobs : default_jobs();
  result.shard = shard.has_value();
  result.out_dir = normalise_dir(o.out_dir);
  result.points_run = points.size();
  if (o.check_only) {
    result.config = std::move(config);
    return result;
  }

  const auto start = std::chrono::steady_clock::now();
  const std::string points_csv = simulate_points(config, points, result.jobs, o.progress);
  SweepScenarioBand band;
  if (!shard) band = scenario_points(config, points, result.jobs, o.progress);
  result.band_points_run = band.points_csv.size() * points.size();
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  StagedDirectory dir(result.out_dir);
  const std::string sweep_json = sweep_json_text(config);
  if (shard) {
    write_file_bytes(dir.file("sweep.json"), sweep_json);
    write_file_bytes(dir.file("points.csv"), points_csv);
    nlohmann::ordered_json j;
    j["schema"] = kShardSchema;
    j["shard"] = shard->index;
    j["shards"] = shard->count;
    j["points"] = points.size();
    j["sweep_points"] = config.point_count();
    write_file_bytes(dir.file("shard.json"), format_json(j));
  } else {
    write_sweep_outputs(config, sweep_json, points_csv, dir.path(), o.plots, band);
  }
  dir.commit();
  result.config = std::move(config);
  return result;
}

namespace {

// What `sparksim pareto --shard i/N` left in its directory.
struct ShardOutput {
  std::string dir;
  std::int64_t index = 0, count = 0, points = 0;
  std::string sweep_json;
  std::vector<PointRecord> rows;
};

// Reads one shard directory; throws InputError unless it is a complete shard whose points all
// belong to its slice.
ShardOutput read_shard(const std::string& d) {
  ShardOutput s;
  s.dir = d;
  const fs::path dir(d);
  if (!fs::exists(dir / "shard.json")) {
    throw InputError(d, 0,
                     "not a shard directory (no shard.json): merge joins the outputs of "
                     "`sparksim pareto --shard i/N`");
  }
  const JsonFile meta = JsonFile::load((dir / "shard.json").string());
  using Pointer = JsonFile::Pointer;
  if (meta.get_string(Pointer("/schema")) != kShardSchema) {
    meta.fail(Pointer("/schema"), std::string("schema must be '") + kShardSchema + "'");
  }
  s.count = meta.get_int(Pointer("/shards"), 1, 100000);
  s.index = meta.get_int(Pointer("/shard"), 1, s.count);
  s.points = meta.get_int(Pointer("/points"), 0, std::numeric_limits<std::int64_t>::max());
  s.sweep_json = read_file_bytes(dir / "sweep.json");
  s.rows = parse_points_csv(read_file_bytes(dir / "points.csv"), (dir / "points.csv").string());
  if (static_cast<std::int64_t>(s.rows.size()) != s.points) {
    throw InputError((dir / "points.csv").string(), 0,
                     "holds " + std::to_string(s.rows.size()) + " points; shard.json says " +
                         std::to_string(s.points) + " (an interrupted or edited shard?)");
  }
  const ShardSpec spec{s.index, s.count};
  for (const auto& r : s.rows) {
    if (!spec.contains(r.point)) {
      throw InputError((dir / "points.csv").string(), 0,
                       "point " + std::to_string(r.point) + " does not belong to shard " +
                           std::to_string(s.index) + "/" + std::to_string(s.count));
    }
  }
  return s;
}

// One sweep, every shard once.
void check_one_sweep_every_shard_once(const std::vector<ShardOutput>& shards,
                                      ProblemList& problems) {
  const ShardOutput& first = shards.front();
  std::map<std::int64_t, std::string> seen;
  for (const auto& s : shards) {
    if (s.sweep_json != first.sweep_json) {
      problems.add(s.dir + ": sweep.json differs from " + first.dir +
                   "'s: shards of different sweeps (or sparksim builds) cannot be merged");
    }
    if (s.count != first.count) {
      problems.add(s.dir + ": is shard " + std::to_string(s.index) + "/" + std::to_string(s.count) +
                   " but " + first.dir + " is one of " + std::to_string(first.count));
    } else if (!seen.emplace(s.index, s.dir).second) {
      problems.add(s.dir + ": shard " + std::to_string(s.index) + "/" + std::to_string(s.count) +
                   " is also in " + seen[s.index]);
    }
  }
  std::string missing;
  for (std::int64_t i = 1; i <= first.count; ++i) {
    if (!seen.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  }
  if (!missing.empty()) {
    problems.add("merge: shards " + missing + " of " + std::to_string(first.count) +
                 " are missing");
  }
}

// Every shard's points, in point order.
std::vector<const PointRecord*> points_in_order(const std::vector<ShardOutput>& shards) {
  std::vector<const PointRecord*> ordered;
  for (const auto& s : shards) {
    for (const auto& r : s.rows) ordered.push_back(&r);
  }
  std::sort(ordered.begin(), ordered.end(),
            [](const PointRecord* a, const PointRecord* b) { return a->point < b->point; });
  return ordered;
}

}  // namespace

MergeResult merge_sweep_shards(const std::vector<std::string>& shard_dirs,
                               const std::string& out_dir, bool plots) {
  ProblemList problems;
  if (shard_dirs.empty()) problems.add("merge: give the shard directories to join");
  if (out_dir.empty()) problems.add("--out DIR is required");
  if (plots) problems.check([] { require_gnuplot(); });
  problems.throw_if_any();

  std::vector<ShardOutput> shards;
  for (const auto& d : shard_dirs) {
    problems.check([&] { shards.push_back(read_shard(d)); });
  }
  problems.throw_if_any();
  check_one_sweep_every_shard_once(shards, problems);
  problems.throw_if_any();

  const ShardOutput& first = shards.front();
  const SweepConfig config = parse_sweep_json(first.sweep_json, first.dir + "/sweep.json");
  const std::vector<const PointRecord*> ordered = points_in_order(shards);
  std::string points_csv = points_csv_header();
  for (const auto* r : ordered) points_csv += r->raw_row + "\n";

  StagedDirectory dir(normalise_dir(out_dir));
  SweepScenarioBand band;
  band.why_none = merged_band_note(config);
  write_sweep_outputs(config, first.sweep_json, points_csv, dir.path(), plots, band);
  dir.commit();
  return MergeResult{config, shards.size(), ordered.size()};
}

}  // namespace sparksim
