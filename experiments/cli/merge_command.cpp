// `sparksim merge`: joins the `sparksim pareto --shard i/N` outputs of one sweep into exactly the
// files a single run writes (checked: same sweep.json, every slice once, every point present).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "experiments/cli/commands.hpp"
#include "experiments/sweep/pareto_experiment.hpp"

namespace sparksim::cli {

void add_merge_command(CLI::App& app) {
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto no_plots = std::make_shared<bool>(false);
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "merge", "join `sparksim pareto --shard i/N` outputs into the files a single run writes");
  cmd->add_option("dirs", *dirs, "shard output directories")->required();
  cmd->add_option("--out", *out, "output directory");
  cmd->add_flag("--no-plots", *no_plots, "skip gnuplot");
  cmd->add_flag("--quiet", *quiet, "print nothing on success");
  cmd->callback([dirs, out, no_plots, quiet] {
    const MergeResult r = merge_sweep_shards(*dirs, *out, !*no_plots);
    if (*quiet) return;
    std::printf("profile   %s\n", r.config.profile_label.c_str());
    std::printf("merged    %zu shards, %zu points\n", r.shards, r.points);
    std::printf("report    %s/report.html\n", out->c_str());
  });
}

}  // namespace sparksim::cli
