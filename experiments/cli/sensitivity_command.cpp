// `sparksim sensitivity`: how much each uncertain input moves a comparison's conclusions: a
// one-at-a-time tornado per output, break-even values, and (when asked) Sobol indices over a joint
// design (experiments/sensitivity/, docs/sensitivity.md).
#include <cstdio>

#include "experiments/cli/commands.hpp"
#include "experiments/sensitivity/sensitivity_experiment.hpp"

namespace sparksim::cli {

void add_sensitivity_command(CLI::App& app) {
  auto o = std::make_shared<SensitivityOptions>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "sensitivity",
      "vary a comparison's uncertain inputs: tornado charts, break-even values, Sobol indices");
  cmd->add_option("--config", o->config_path, "sensitivity config (sparksim.sensitivity/1)");
  cmd->add_option("--out", o->out_dir, "output directory");
  cmd->add_option("--jobs", o->jobs, "worker threads per sweep (default: every CPU it may use)");
  cmd->add_flag("--quiet", *quiet, "print nothing on success");
  cmd->callback([o, quiet] {
    const SensitivityRun r = run_sensitivity(*o);
    if (*quiet) return;
    std::printf("study     %s\n", r.config.title.c_str());
    std::printf("profile   %s\n", r.config.profile_label.c_str());
    std::printf("inputs    %zu, outputs %zu, %zu sweeps simulated in %.1f s\n",
                r.config.inputs.size(), r.outputs.size(), r.result.evaluations, r.wall_s);
    for (std::size_t k = 0; k < r.outputs.size(); ++k) {
      const auto order = tornado_order(r.result.one_at_a_time, k);
      if (order.empty()) continue;
      std::printf("  %s: largest swing from %s\n", r.outputs[k].name.c_str(),
                  r.config.inputs[order.front()].label().c_str());
    }
    std::printf("wrote     %s/{sensitivity.csv,report.html,...}\n", o->out_dir.c_str());
  });
}

}  // namespace sparksim::cli
