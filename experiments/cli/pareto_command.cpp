// `sparksim pareto`: a sweep over (drafter, policy, load, seed) from a config, in parallel, to
// points.csv, frontier.csv, plots and report.html (`--shard i/N` runs one slice; see
// merge_command).
#include <cstdio>
#include <string>

#include "experiments/cli/commands.hpp"
#include "experiments/sweep/pareto_experiment.hpp"

namespace sparksim::cli {

void add_pareto_command(CLI::App& app) {
  auto o = std::make_shared<ParetoOptions>();
  auto quiet = std::make_shared<bool>(false);
  auto no_plots = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "pareto", "sweep drafter x policy x load x seed; Pareto frontiers, plots and a report");
  cmd->add_option("--config", o->config_path,
                  "sweep config (JSON, e.g. experiments/configs/dspark_vs_mtp1.json)");
  cmd->add_option("--out", o->out_dir, "output directory");
  cmd->add_option("--jobs", o->jobs, "worker threads (default: every CPU it may use)");
  cmd->add_option("--shard", o->shard,
                  "run only slice i of N (i/N) for a batch scheduler; join with sparksim merge");
  cmd->add_flag("--no-plots", *no_plots, "skip gnuplot (the report then has tables only)");
  cmd->add_flag("--quiet", *quiet, "print nothing on success (progress shows only on a terminal)");
  cmd->add_flag("--check", o->check_only,
                "check the config and options as a run would, then stop: nothing runs or is "
                "written (exit 2 with every problem, else 0)");
  cmd->callback([o, quiet, no_plots] {
    o->plots = !*no_plots;
    o->progress = !*quiet;
    const SweepRunResult r = run_pareto(*o);
    if (*quiet) return;
    const auto& c = r.config;
    std::printf("profile   %s\n", c.profile_label.c_str());
    std::printf("sweep     %zu systems x %zu loads x %zu seeds = %zu points\n", c.systems.size(),
                c.loads.size(), c.seeds.size(), c.point_count());
    if (o->check_only) {
      const std::string which = r.shard ? " (shard " + o->shard + ")" : "";
      std::printf("checked   %zu points%s would run; nothing was run or written\n", r.points_run,
                  which.c_str());
      return;
    }
    const std::size_t simulated = r.points_run + r.band_points_run;
    const std::string band = r.band_points_run > 0 ? " (+" + std::to_string(r.band_points_run) +
                                                         " under the other acceptance scenarios)"
                                                   : "";
    std::printf("ran       %zu points%s in %.2f s on %d workers (%.1f points/s)\n", r.points_run,
                band.c_str(), r.wall_s, r.jobs,
                r.wall_s > 0 ? static_cast<double>(simulated) / r.wall_s : 0);
    if (r.shard) {
      std::printf(
          "wrote     %s/{points.csv,sweep.json,shard.json} (a shard: join the shards with "
          "`sparksim merge DIR... --out DIR`)\n",
          r.out_dir.c_str());
    } else {
      std::printf("wrote     %s/{points.csv,aggregates.csv,frontier.csv,sweep.json,*.png,*.svg}\n",
                  r.out_dir.c_str());
      std::printf("report    %s/report.html\n", r.out_dir.c_str());
    }
  });
}

}  // namespace sparksim::cli
