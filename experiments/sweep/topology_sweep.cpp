// The topology sweep (see the header): build every profile, validate, simulate, reduce, write.
#include "experiments/sweep/topology_sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/staged_directory.hpp"
#include "common/text_file.hpp"
#include "common/version.hpp"
#include "experiments/report/report_format.hpp"
#include "experiments/report/sweep_report.hpp"
#include "experiments/run/parallel_runner.hpp"
#include "experiments/run/problem_list.hpp"
#include "experiments/sweep/pareto_experiment.hpp"
#include "experiments/sweep/sweep_points.hpp"
#include "experiments/sweep/topology_profiles.hpp"
#include "profiles/profile_io.hpp"
#include "sim/acceptance/acceptance_scenarios.hpp"

namespace sparksim {

namespace {

namespace fs = std::filesystem;
using report::fixed_text;

const SpeedMetric kMetrics[2] = {SpeedMetric::kP50, SpeedMetric::kAtPercentile};

std::string ratio_text(double r) {
  return fixed_text(r, 3);
}

std::string range_text(std::vector<double> v) {
  if (v.empty()) return "-";
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return fixed_text(median_of(v), 2) + "x [" + fixed_text(*lo, 2) + "-" + fixed_text(*hi, 2) + "]";
}

std::string gain_text(const PublishedGain& g) {
  return "+" + fixed_text(g.low * 100, 0) + "-" + fixed_text(g.high * 100, 0) + "% (" +
         fixed_text(1 + g.low, 2) + "-" + fixed_text(1 + g.high, 2) + "x)";
}

// Builds the entries' profiles (build_topology_profiles) and writes them under `dir`/profiles.
void build_profiles(const TopologySweepConfig& c, const fs::path& dir,
                    std::vector<TopologyEntry>& entries, std::vector<Profile>& profiles,
                    ProblemList& problems) {
  build_topology_profiles(c, entries, profiles, problems);
  fs::create_directories(dir / "profiles");
  for (std::size_t i = 0; i < entries.size() && i < profiles.size(); ++i) {
    if (!entries[i].refused.empty()) continue;
    entries[i].profile_path = "profiles/" + entries[i].name + ".json";
    write_file_bytes(dir / entries[i].profile_path, format_profile(profiles[i]));
  }
}

// The minimum and maximum of `v` as two CSV cells (both empty for none).
std::string min_max_cells(const std::vector<double>& v, int digits) {
  if (v.empty()) return ",";
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return fixed_text(*lo, digits) + "," + fixed_text(*hi, digits);
}

// One topology's outcome (entry, metric, outcome index) under every scenario: the best throughput
// and the ratio where there is one, and under how many scenarios the system misses the tier.
struct OutcomeBand {
  std::vector<double> best, ratios;
  int infeasible = 0;
};

OutcomeBand outcome_band(const std::vector<ScenarioSweep>& scenarios, std::size_t entry, int m,
                         std::size_t outcome) {
  OutcomeBand band;
  for (const ScenarioSweep& sc : scenarios) {
    const TopologyEntry& e = sc.entries[entry];
    const TierOutcome& o = e.outcomes[m][outcome];
    if (o.best) {
      band.best.push_back(e.analysis.aggregates[*o.best].throughput_tok_s_per_gpu.mean);
    } else {
      ++band.infeasible;
    }
    if (o.throughput_ratio_vs_baseline) band.ratios.push_back(*o.throughput_ratio_vs_baseline);
  }
  return band;
}

// topologies.csv of scenarios[which], with the band over every scenario in its last columns.
std::string topologies_csv(const SweepConfig& s, const std::vector<ScenarioSweep>& scenarios,
                           std::size_t which) {
  std::ostringstream out;
  out << "entry,gpu,topology,two_batch_overlap,routing,kv_tokens_per_gpu,status,metric,tier,"
         "system,best_tok_s_per_gpu,best_load,best_tok_s_per_user,fastest_tok_s_per_user,"
         "throughput_vs_baseline,speed_vs_baseline_at_matched_throughput,acceptance_scenario,"
         "best_tok_s_per_gpu_scenario_min,best_tok_s_per_gpu_scenario_max,"
         "throughput_vs_baseline_scenario_min,throughput_vs_baseline_scenario_max,"
         "scenarios_infeasible\n";
  const std::vector<TopologyEntry>& entries = scenarios[which].entries;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const TopologyEntry& e = entries[i];
    const std::string head = e.name + "," + e.gpu + "," + (e.extra ? "-" : e.topology) + "," +
                             (e.extra ? "-" : (e.two_batch_overlap ? "on" : "off")) + "," +
                             (e.extra ? "-" : e.routing) + "," + std::to_string(e.kv_tokens);
    if (!e.refused.empty()) {
      std::string why = e.refused;
      std::replace(why.begin(), why.end(), ',', ';');
      out << head << ",refused: " << why << ",,,,,,,,,,,,,,,\n";
      continue;
    }
    for (SpeedMetric m : kMetrics) {
      const auto& outcomes = e.outcomes[static_cast<int>(m)];
      for (std::size_t j = 0; j < outcomes.size(); ++j) {
        const TierOutcome& o = outcomes[j];
        const auto& a = e.analysis.aggregates;
        out << head << ",ok," << speed_metric_name(s, m) << ","
            << format_number(o.tier_tok_s_per_user) << "," << s.systems[o.system].label() << ",";
        if (o.best) {
          out << fixed_text(a[*o.best].throughput_tok_s_per_gpu.mean, 1) << ","
              << report::load_text(s, a[*o.best].load) << ","
              << fixed_text(speed_of(a[*o.best], m).mean, 2);
        } else {
          out << "infeasible,,";
        }
        out << "," << fixed_text(speed_of(a[o.fastest], m).mean, 2) << ",";
        if (o.throughput_ratio_vs_baseline) {
          out << ratio_text(*o.throughput_ratio_vs_baseline);
        } else {
          out << (o.best ? "baseline infeasible" : "infeasible");
        }
        out << ","
            << (o.speed_ratio_at_matched_throughput
                    ? ratio_text(*o.speed_ratio_at_matched_throughput)
                    : std::string("-"));
        const OutcomeBand band = outcome_band(scenarios, i, static_cast<int>(m), j);
        out << "," << scenarios[which].name << "," << min_max_cells(band.best, 1) << ","
            << min_max_cells(band.ratios, 3) << "," << band.infeasible << "\n";
      }
    }
  }
  return out.str();
}

std::string budget_csv(const SweepConfig& sweep, const std::vector<TopologyEntry>& entries) {
  std::ostringstream out;
  out << "entry,system,concurrency_per_gpu,tok_s_per_gpu,tok_s_per_user_p50,"
         "verify_tokens_per_request_step,tau_mean,running_requests_mean\n";
  for (const TopologyEntry& e : entries) {
    if (!e.refused.empty()) continue;
    for (const LoadAggregate& a : e.analysis.aggregates) {
      out << e.name << "," << sweep.systems[a.system].label() << ","
          << report::load_text(sweep, a.load) << ","
          << fixed_text(a.throughput_tok_s_per_gpu.mean, 1) << ","
          << fixed_text(a.tok_s_per_user_p50.mean, 2) << ","
          << fixed_text(a.verify_tokens_per_request_step_mean.mean, 3) << ","
          << fixed_text(a.tau_mean.mean, 3) << "," << fixed_text(a.running_requests_mean.mean, 1)
          << "\n";
    }
  }
  return out.str();
}

// summary.csv and the text table: per metric × tier × compared system.
// One topology's cell for a tier: the throughput ratio (or which side is infeasible) and the
// speed ratio at matched throughput when there is one.
std::string topology_cell(const TierOutcome& o, const TierOutcome& b) {
  std::string cell;
  if (!b.best) {
    cell = "baseline infeasible";
  } else if (!o.best) {
    cell = "infeasible";
  } else {
    cell = fixed_text(*o.throughput_ratio_vs_baseline, 2) + "x";
  }
  if (o.speed_ratio_at_matched_throughput) {
    cell += " / speed " + fixed_text(*o.speed_ratio_at_matched_throughput, 2) + "x";
  }
  return cell;
}

// A system against the baseline at one tier, over the measured-db topologies (the extra
// profiles listed apart).
struct TierComparison {
  std::size_t n = 0, base_missing = 0, sys_missing = 0;
  std::vector<double> ratios, speeds;
  std::string extras;
};

TierComparison compare_at_tier(const std::vector<TopologyEntry>& entries, int mi, double tier,
                               std::size_t sys, std::size_t baseline) {
  TierComparison t;
  for (const TopologyEntry& e : entries) {
    if (!e.refused.empty()) continue;
    const TierOutcome* o = nullptr;
    const TierOutcome* b = nullptr;
    for (const TierOutcome& x : e.outcomes[mi]) {
      if (x.tier_tok_s_per_user != tier) continue;
      if (x.system == sys) o = &x;
      if (x.system == baseline) b = &x;
    }
    if (o == nullptr || b == nullptr) continue;
    if (e.extra) {
      t.extras += (t.extras.empty() ? "" : "; ") + e.name + ": " + topology_cell(*o, *b);
      continue;
    }
    ++t.n;
    if (!b->best) ++t.base_missing;
    if (!o->best) ++t.sys_missing;
    if (o->throughput_ratio_vs_baseline) t.ratios.push_back(*o->throughput_ratio_vs_baseline);
    if (o->speed_ratio_at_matched_throughput) {
      t.speeds.push_back(*o->speed_ratio_at_matched_throughput);
    }
  }
  return t;
}

// The paper's figures that apply at this tier ("" when none).
std::string published_text(const std::optional<PublishedFigures>& pub, double tier) {
  std::string published;
  if (pub && pub->throughput_gain_at_tier && pub->tier_tok_s_per_user == tier) {
    published = "throughput " + gain_text(*pub->throughput_gain_at_tier);
  }
  if (pub && pub->speed_gain_at_matched_throughput) {
    published += (published.empty() ? "" : "; ") + std::string("speed at matched ") +
                 gain_text(*pub->speed_gain_at_matched_throughput);
  }
  return published;
}

// which: 0 the median, 1 the smallest, 2 the largest ("" for none).
std::string ratio_stat(const std::vector<double>& v, int which) {
  if (v.empty()) return std::string();
  if (which == 0) return ratio_text(median_of(v));
  return ratio_text(which == 1 ? *std::min_element(v.begin(), v.end())
                               : *std::max_element(v.begin(), v.end()));
}

// The summary's columns for one comparison (no line end: callers add the band or end it).
void write_summary_cells(std::ostream& out, const std::string& metric, double tier,
                         const std::string& system, const TierComparison& t,
                         const std::string& published) {
  std::string extras_csv = t.extras, published_csv = published;
  std::replace(extras_csv.begin(), extras_csv.end(), ',', ';');
  std::replace(published_csv.begin(), published_csv.end(), ',', ';');
  out << metric << "," << format_number(tier) << "," << system << "," << t.n << ","
      << t.base_missing << "," << t.sys_missing << "," << t.ratios.size() << ","
      << ratio_stat(t.ratios, 0) << "," << ratio_stat(t.ratios, 1) << "," << ratio_stat(t.ratios, 2)
      << "," << ratio_stat(t.speeds, 0) << "," << ratio_stat(t.speeds, 1) << ","
      << ratio_stat(t.speeds, 2) << "," << extras_csv << "," << published_csv;
}

void write_summary_text(std::ostream& text, const std::string& metric, double tier,
                        const std::string& system, const std::string& baseline,
                        const TierComparison& t, const std::string& published) {
  text << metric << " tok/s/user >= " << format_number(tier) << ", " << system << " vs " << baseline
       << ":\n"
       << "  topologies " << t.n << " (baseline infeasible on " << t.base_missing
       << ", this system infeasible on " << t.sys_missing << ")\n"
       << "  throughput per GPU at the tier: " << range_text(t.ratios) << " over "
       << t.ratios.size() << " where both meet it\n"
       << "  per-user speed at the baseline's throughput: " << range_text(t.speeds) << "\n";
  if (!t.extras.empty()) text << "  " << t.extras << "\n";
  if (!published.empty()) text << "  paper (not fitted to): " << published << "\n";
}

// One comparison (metric, tier, system) under every scenario: the medians over the topologies
// (where there is one) and the infeasible counts.
struct ScenarioSpread {
  std::vector<double> throughput_medians, speed_medians;
  std::vector<double> system_infeasible;
};

ScenarioSpread spread_over(const std::vector<TierComparison>& per_scenario) {
  ScenarioSpread spread;
  for (const TierComparison& t : per_scenario) {
    if (!t.ratios.empty()) spread.throughput_medians.push_back(median_of(t.ratios));
    if (!t.speeds.empty()) spread.speed_medians.push_back(median_of(t.speeds));
    spread.system_infeasible.push_back(static_cast<double>(t.sys_missing));
  }
  return spread;
}

// summary.csv's band columns: the scenario the row is under, the scenarios the band spans, and the
// band of the medians and of the infeasible counts.
void write_band_cells(std::ostream& out, const TopologySweepResult& r, std::size_t which,
                      const ScenarioSpread& spread) {
  std::string names;
  for (const ScenarioSweep& sc : r.scenarios) names += (names.empty() ? "" : ";") + sc.name;
  out << "," << r.scenarios[which].name << "," << names << ","
      << min_max_cells(spread.throughput_medians, 3) << ","
      << min_max_cells(spread.speed_medians, 3) << ","
      << min_max_cells(spread.system_infeasible, 0);
}

std::string times_text(const std::vector<double>& v) {
  if (v.empty()) return "-";
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return fixed_text(*lo, 2) + "-" + fixed_text(*hi, 2) + "x";
}

// summary.txt's lines for the band: the comparison under each scenario, then the band.
void write_scenario_text(std::ostream& text, const TopologySweepResult& r,
                         const std::vector<TierComparison>& per_scenario,
                         const ScenarioSpread& spread) {
  for (std::size_t k = 0; k < per_scenario.size(); ++k) {
    const TierComparison& t = per_scenario[k];
    text << "  under " << r.scenarios[k].name << (r.scenarios[k].is_default ? " (default)" : "")
         << ": throughput " << range_text(t.ratios) << " over " << t.ratios.size() << ", speed "
         << range_text(t.speeds) << "; infeasible: baseline " << t.base_missing << ", system "
         << t.sys_missing;
    if (!t.extras.empty()) text << "; " << t.extras;
    text << "\n";
  }
  const TierComparison& d = per_scenario.front();
  text << "  band over the " << per_scenario.size()
       << " acceptance scenarios (medians over topologies): throughput "
       << times_text(spread.throughput_medians) << ", speed " << times_text(spread.speed_medians)
       << "; default " << r.scenarios.front().name << ": "
       << (d.ratios.empty() ? "-" : fixed_text(median_of(d.ratios), 2) + "x") << ", "
       << (d.speeds.empty() ? "-" : fixed_text(median_of(d.speeds), 2) + "x") << "\n";
}

// summary.csv and summary.txt (under the first scenario, with the band) and scenarios.csv (the
// summary's rows under every scenario).
void summarise(TopologySweepResult& r, std::string& csv, std::string& scenarios_csv) {
  const SweepConfig& s = r.sweep;
  const std::size_t baseline = *s.baseline;
  const bool band = r.no_band.empty();
  std::ostringstream text, out, per_scenario_out;
  const char* columns =
      "metric,tier,system,topologies,baseline_infeasible,system_infeasible,both_met,"
      "throughput_ratio_median,throughput_ratio_min,throughput_ratio_max,"
      "speed_ratio_at_matched_median,speed_ratio_at_matched_min,speed_ratio_at_matched_max,"
      "extra_profiles,published";
  out << columns
      << ",acceptance_scenario,scenario_band,throughput_ratio_median_scenario_min,"
         "throughput_ratio_median_scenario_max,speed_ratio_at_matched_median_scenario_min,"
         "speed_ratio_at_matched_median_scenario_max,system_infeasible_scenario_min,"
         "system_infeasible_scenario_max\n";
  per_scenario_out << "scenario,default,acceptance," << columns << "\n";
  for (SpeedMetric m : kMetrics) {
    const std::string metric = speed_metric_name(s, m);
    for (double tier : s.tiers_tok_s_per_user) {
      const std::string published = published_text(r.config.published, tier);
      for (std::size_t sys = 0; sys < s.systems.size(); ++sys) {
        if (sys == baseline) continue;
        std::vector<TierComparison> per_scenario;
        for (const ScenarioSweep& sc : r.scenarios) {
          per_scenario.push_back(
              compare_at_tier(sc.entries, static_cast<int>(m), tier, sys, baseline));
          std::string acceptance = sc.acceptance;
          std::replace(acceptance.begin(), acceptance.end(), ',', ';');
          per_scenario_out << sc.name << "," << (sc.is_default ? "yes" : "no") << "," << acceptance
                           << ",";
          write_summary_cells(per_scenario_out, metric, tier, s.systems[sys].label(),
                              per_scenario.back(), published);
          per_scenario_out << "\n";
        }
        const ScenarioSpread spread = spread_over(per_scenario);
        write_summary_cells(out, metric, tier, s.systems[sys].label(), per_scenario.front(),
                            published);
        write_band_cells(out, r, 0, spread);
        out << "\n";
        write_summary_text(text, metric, tier, s.systems[sys].label(), s.systems[baseline].label(),
                           per_scenario.front(), published);
        if (band) write_scenario_text(text, r, per_scenario, spread);
      }
    }
  }
  csv = out.str();
  scenarios_csv = per_scenario_out.str();
  r.summary_text = text.str();
}

// The acceptance line of summary.txt: the scenarios and the default, or why there is no band.
std::string acceptance_header(const TopologySweepResult& r) {
  if (!r.no_band.empty()) {
    return "acceptance: " + r.sweep.acceptance + " (scenario " + r.scenarios.front().name +
           "); no band over acceptance scenarios: " + r.no_band + "\n";
  }
  std::string names;
  for (const ScenarioSweep& sc : r.scenarios) names += (names.empty() ? "" : ", ") + sc.name;
  return "acceptance: " + r.sweep.acceptance + ", every sweep run under each DSpark scenario (" +
         names + "); the figures are the default " + r.scenarios.front().name +
         "'s, each followed by every scenario's and the band (docs/moe.md)\n";
}

// The acceptance scenarios to run: every one when the comparison's acceptance leaves the
// scenario open, else the one it pins (no band). Each scenario's acceptance is prepared for every
// system, as load_sweep_config prepared the comparison's own, before anything runs.
void plan_scenarios(TopologySweepResult& r, ProblemList& problems) {
  const ScenarioBand band = scenario_band(r.config.target, r.sweep.acceptance);
  r.no_band = band.why_none;
  if (band.scenarios.empty()) {
    r.scenarios.push_back({band.pinned.empty() ? "-" : band.pinned,
                           r.sweep.acceptance,
                           band.pinned == kDefaultV4Scenario,
                           {}});
    return;
  }
  for (const std::string& name : band.scenarios) {
    ScenarioSweep sc{
        name, acceptance_under_scenario(r.sweep.acceptance, name), name == kDefaultV4Scenario, {}};
    for (std::size_t sys = 0; sys < r.sweep.systems.size() && !sc.is_default; ++sys) {
      problems.check([&] {
        SweepConfig s = r.sweep;
        s.acceptance = sc.acceptance;
        try {
          (void)prepare_run(point_run_options(s, SweepPoint{0, sys, 0, 0}));
        } catch (const InputError& e) {
          throw InputError(r.config.path, 0,
                           "scenario " + name + ", " + s.systems[sys].label() + ": " + e.what());
        }
      });
    }
    r.scenarios.push_back(std::move(sc));
  }
}

// Simulates every entry that fits under `acceptance` (profiles under `out`), writing each sweep
// under `root`/<entry>/, and fills the entries' analyses and tier outcomes. Returns the points
// simulated.
std::size_t run_entries(const SweepConfig& sweep, const std::string& acceptance,
                        const std::vector<Profile>& profiles, const fs::path& out,
                        const fs::path& root, int jobs, bool progress,
                        std::vector<TopologyEntry>& entries) {
  std::size_t points_run = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    TopologyEntry& e = entries[i];
    if (!e.refused.empty()) continue;
    SweepConfig s = sweep;
    s.acceptance = acceptance;
    s.profile_path = (out / e.profile_path).string();
    s.profile_source = profiles[i].provenance.source;
    s.profile_label = e.profile_label;
    const std::vector<SweepPoint> points = expand_points(s);
    const std::string points_csv = simulate_points(s, points, jobs, progress);
    points_run += points.size();
    s.profile_path = e.profile_path;  // as the output directory holds it
    fs::create_directories(root / e.name);
    write_sweep_outputs(s, sweep_json_text(s), points_csv, root / e.name, false);
    e.analysis = analyze_sweep(s, parse_points_csv(points_csv, e.name + "/points.csv"));
    for (SpeedMetric m : kMetrics) {
      e.outcomes[static_cast<int>(m)] =
          evaluate_tiers(s, e.analysis, s.tiers_tok_s_per_user, *s.baseline, m);
    }
  }
  return points_run;
}

}  // namespace

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

TopologySweepResult run_topology_sweep(const TopologySweepOptions& options) {
  ProblemList problems;
  if (options.out_dir.empty()) problems.add("--out DIR is required");
  if (options.jobs < 0) problems.add("--jobs must be >= 1 (or 0 for every CPU it may use)");
  TopologySweepResult r;
  problems.check([&] { r.config = load_topology_sweep_config(options.config_path); });
  problems.throw_if_any();
  const TopologySweepConfig& c = r.config;
  problems.check([&] {
    if (!fs::exists(fs::path(c.database_dir) / "database.json")) {
      throw InputError(c.path, 0, "database \"" + c.database_dir + "\" has no database.json");
    }
  });
  problems.check([&] {
    r.sweep = load_sweep_config(c.sweep_path);
    if (!c.loads.empty()) r.sweep.loads = c.loads;
    if (!c.seeds.empty()) {
      r.sweep.seeds.assign(c.seeds.begin(), c.seeds.end());
    }
    if (r.sweep.load_kind != LoadKind::kConcurrency) {
      throw InputError(c.sweep_path, 0, "a V4 topology sweep needs concurrency loads");
    }
    check_analysis_settings(r.sweep, c.sweep_path);
    if (r.sweep.tiers_tok_s_per_user.empty()) {
      throw InputError(c.sweep_path, 0, "no tiers_tok_s_per_user to evaluate");
    }
  });
  problems.throw_if_any();
  plan_scenarios(r, problems);
  problems.throw_if_any();

  std::string out_dir = fs::path(options.out_dir).lexically_normal().string();
  while (out_dir.size() > 1 && out_dir.back() == '/') out_dir.pop_back();
  StagedDirectory dir(out_dir);
  std::vector<Profile> profiles;
  build_profiles(c, dir.path(), r.entries, profiles, problems);
  problems.throw_if_any();
  if (std::all_of(r.entries.begin(), r.entries.end(),
                  [](const TopologyEntry& e) { return !e.refused.empty(); })) {
    throw InputError(c.path, 0, "no topology fits: " + r.entries.front().refused);
  }

  const int jobs = options.jobs > 0 ? options.jobs : default_jobs();
  for (ScenarioSweep& sc : r.scenarios) {
    sc.entries = r.entries;
    // The first scenario's files are the top-level ones, as they were before there was a band.
    const fs::path root =
        &sc == &r.scenarios.front() ? dir.path() : dir.path() / "scenarios" / sc.name;
    r.points += run_entries(r.sweep, sc.acceptance, profiles, dir.path(), root, jobs,
                            options.progress, sc.entries);
  }
  for (std::size_t k = 1; k < r.scenarios.size(); ++k) {
    const fs::path root = dir.path() / "scenarios" / r.scenarios[k].name;
    write_file_bytes(root / "topologies.csv", topologies_csv(r.sweep, r.scenarios, k));
    write_file_bytes(root / "budget.csv", budget_csv(r.sweep, r.scenarios[k].entries));
  }
  r.entries = r.scenarios.front().entries;
  std::string summary_csv, scenarios_csv;
  summarise(r, summary_csv, scenarios_csv);
  write_file_bytes(dir.file("topologies.csv"), topologies_csv(r.sweep, r.scenarios, 0));
  write_file_bytes(dir.file("budget.csv"), budget_csv(r.sweep, r.entries));
  write_file_bytes(dir.file("summary.csv"), summary_csv);
  write_file_bytes(dir.file("scenarios.csv"), scenarios_csv);
  std::string header = c.title + "\n" + "comparison: " + c.sweep_path + "; loads per GPU";
  for (double l : r.sweep.loads) header += " " + format_number(l);
  header += "; seeds " + std::to_string(r.sweep.seeds.size()) + "\n";
  for (const TopologyEntry& e : r.entries) {
    header += "  " + e.name + ": " +
              (e.refused.empty() ? std::to_string(e.kv_tokens) + " KV tokens per GPU"
                                 : "refused: " + e.refused) +
              "\n";
  }
  r.summary_text = header + acceptance_header(r) + r.summary_text;
  write_file_bytes(dir.file("summary.txt"), r.summary_text);
  dir.commit();
  return r;
}

}  // namespace sparksim
