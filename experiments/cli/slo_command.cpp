// `sparksim slo`: SLA tiers over a sweep: per tier and system, the best throughput per GPU that
// meets the tier, the ratio to the baseline, and the per-user speed ratio at matched throughput.
#include <cstdio>

#include "experiments/cli/commands.hpp"
#include "experiments/report/slo_experiment.hpp"
#include "experiments/report/sweep_report.hpp"

namespace sparksim::cli {

void add_slo_command(CLI::App& app) {
  auto o = std::make_shared<SloOptions>();
  auto percentile = std::make_shared<double>(50);
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "slo",
      "find the best throughput per GPU that meets each interactivity tier, vs the baseline");
  cmd->add_option("--config", o->config_path, "sweep config to simulate");
  cmd->add_option("--points", o->points_dir,
                  "reuse a finished `sparksim pareto`/`merge` output directory instead");
  cmd->add_option("--tiers", o->tiers, "tok/s/user tiers, e.g. 80,120 (default: the config's)");
  cmd->add_option("--percentile", *percentile,
                  "percentile of tok/s/user that must reach the tier (50: half the requests; "
                  "10: 90% of them)")
      ->capture_default_str();
  cmd->add_option("--out", o->out_dir, "output directory");
  cmd->add_option("--jobs", o->jobs, "worker threads (default: every CPU it may use)");
  cmd->add_flag("--quiet", *quiet, "print nothing on success");
  cmd->callback([o, percentile, quiet] {
    o->percentile = *percentile;
    o->progress = !*quiet;
    const SloResult r = run_slo(*o);
    if (*quiet) return;
    const auto& c = r.config;
    std::printf("profile   %s\n", c.profile_label.c_str());
    std::printf("sweep     %s: %zu systems x %zu loads x %zu seeds%s\n", c.title.c_str(),
                c.systems.size(), c.loads.size(), c.seeds.size(),
                r.points_simulated > 0 ? "" : " (points reused)");
    std::printf("tiers     tok/s/user at %s of requests, seed means; baseline %s\n\n",
                speed_metric_name(c, r.metric).c_str(), c.systems[*c.baseline].label().c_str());
    std::fputs(tiers_table(c, r.analysis, r.outcomes, r.metric).c_str(), stdout);
    std::printf("\nwrote     %s/{slo.csv,points.csv,aggregates.csv,sweep.json}\n",
                o->out_dir.c_str());
  });
}

}  // namespace sparksim::cli
