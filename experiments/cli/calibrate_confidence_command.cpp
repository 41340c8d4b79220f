// `sparksim calibrate confidence`: Sequential Temperature Scaling for a drafter's confidence head,
// fitted from an acceptance log or from a run simulated for the purpose; prints ECE, ROC-AUC and
// Brier per position before and after on held-out requests and writes the temperatures file.
#include <cstdio>
#include <iostream>

#include "experiments/calibrate/calibrate_experiment.hpp"
#include "experiments/cli/commands.hpp"

namespace sparksim::cli {

void add_calibrate_confidence_command(CLI::App& calibrate) {
  auto options = std::make_shared<CalibrateOptions>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = calibrate.add_subcommand(
      "confidence",
      "fit STS temperatures to a drafter's confidences (from --acceptance-log, or a simulated "
      "run) and report ECE / ROC-AUC / Brier per position before and after, held out");
  CalibrateOptions& o = *options;
  RunOptions& r = o.run;
  cmd->add_option("--acceptance-log", o.acceptance_log,
                  "a sparksim acceptance log (sparksim run --write-acceptance-log)");
  cmd->add_option("--trace", r.trace_path, "simulate this trace to produce the log");
  cmd->add_option("--trace-format", r.trace_format, "azure | mooncake | csv (default: detect)");
  cmd->add_option("--synthetic", r.synthetic, "or simulate synthetic traffic (see `run`)");
  cmd->add_option("--domain", r.domain, "override the trace's domain: math | code | chat");
  cmd->add_option("--max-requests", r.max_requests, "keep only the first N trace rows");
  cmd->add_option("--profile", r.profile_path, "profile JSON (its target picks the curves)");
  cmd->add_option("--drafter", r.drafter, "mtp1 | eagle3-G | dflash-G | dspark-G")
      ->capture_default_str();
  cmd->add_option("--policy", r.policy, "verification policy of the simulated run")
      ->capture_default_str();
  cmd->add_option("--acceptance", r.acceptance, "acceptance model of the simulated run")
      ->capture_default_str();
  cmd->add_option("--seed", r.seed, "seed of the simulated run")->capture_default_str();
  cmd->add_option("--heldout-fraction", o.heldout_fraction,
                  "fraction of requests held out of the fit for evaluation")
      ->capture_default_str();
  cmd->add_option("--split-seed", o.split_seed, "seed of the fit / held-out split")
      ->capture_default_str();
  cmd->add_option("--out", o.out_path, "temperatures file to write (JSON)");
  cmd->add_flag("--quiet", *quiet, "print nothing on success");
  cmd->callback([options, quiet] {
    const CalibrateResult result = run_calibration(*options);
    if (!*quiet) {
      std::cout << format_calibration(result);
      std::printf("wrote %s (use: --acceptance calibrated:sts=%s)\n", options->out_path.c_str(),
                  options->out_path.c_str());
    }
  });
}

}  // namespace sparksim::cli
