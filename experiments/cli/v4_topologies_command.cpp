// `sparksim v4-topologies`: a DeepSeek-V4 comparison (DSpark-5 against MTP-1) on every plausible
// replica topology (GPU × expert-parallel size × two-batch overlap × expert routing, profiles
// composed from the measured database) and on the telemetry fits, under each DSpark acceptance
// scenario; tier gains as median and range, the band over scenarios, infeasible baselines counted,
// the paper's figures beside (experiments/sweep/topology_sweep.hpp).
#include <cstdio>

#include "experiments/cli/commands.hpp"
#include "experiments/sweep/topology_sweep.hpp"

namespace sparksim::cli {

void add_v4_topologies_command(CLI::App& app) {
  auto o = std::make_shared<TopologySweepOptions>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "v4-topologies",
      "run one DeepSeek-V4 comparison on every topology (GPU x EP x overlap x routing) and report "
      "tier gains as median [range]");
  cmd->add_option("--config", o->config_path, "sparksim.v4-topologies/1 config")->required();
  cmd->add_option("--out", o->out_dir, "output directory")->required();
  cmd->add_option("--jobs", o->jobs, "worker threads (default: every CPU it may use)");
  cmd->add_flag("--quiet", *quiet, "print nothing on success");
  cmd->callback([o, quiet] {
    o->progress = !*quiet;
    const TopologySweepResult r = run_topology_sweep(*o);
    if (*quiet) return;
    std::fputs(r.summary_text.c_str(), stdout);
    std::printf(
        "\nwrote     %s/{summary.txt,summary.csv,scenarios.csv,topologies.csv,budget.csv,"
        "profiles/%s,...} (%zu points)\n",
        o->out_dir.c_str(), r.scenarios.size() > 1 ? ",scenarios/" : "", r.points);
  });
}

}  // namespace sparksim::cli
