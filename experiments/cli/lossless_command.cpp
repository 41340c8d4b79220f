// `sparksim lossless`: the losslessness validator. Runs a registry policy on the exact token-level
// mode and G-tests the committed tokens against the target; `--appendix-a` reproduces the paper's
// counterexample. Exit 0: no distortion detected; 3: distortion detected; 2: bad input.
#include <iostream>
#include <memory>

#include "experiments/cli/commands.hpp"
#include "experiments/lossless/lossless_validator.hpp"
#include "policies/policy_registry.hpp"

namespace sparksim::cli {

void add_lossless_command(CLI::App& app) {
  struct Options {
    LosslessOptions validator;
    bool appendix_a = false;
    std::int64_t trials = 1'000'000;
  };
  auto options = std::make_shared<Options>();
  LosslessOptions& o = options->validator;
  CLI::App* cmd = app.add_subcommand(
      "lossless",
      "test whether a verification policy preserves the target's output distribution (exact "
      "token-level mode; exit 0 lossless, 3 distorted)");
  cmd->add_option("--policy", o.policy,
                  "verification policy spec ('--policy help' lists them); optional with "
                  "--appendix-a");
  cmd->add_option("--drafter", o.drafter, "parallel | markov | autoregressive | adversarial")
      ->capture_default_str();
  cmd->add_option("--requests", o.requests, "requests, spread over the load levels")
      ->capture_default_str();
  cmd->add_option("--seed", o.seed, "random seed")->capture_default_str();
  cmd->add_option("--alpha", o.alpha, "significance of the test (false-alarm rate bound)")
      ->capture_default_str();
  cmd->add_option("--model", o.scenario.model,
                  "token-level model spec ('sparksim run --acceptance help' lists its keys; "
                  "the drafter comes from --drafter)")
      ->capture_default_str();
  cmd->add_flag("--appendix-a", options->appendix_a,
                "reproduce the paper's Appendix A counterexample (retrospective vs greedy)");
  cmd->add_option("--trials", options->trials, "--appendix-a: one-step trials per policy")
      ->capture_default_str();
  cmd->add_option("--out", o.out_dir, "output directory (writes DIR/result.json)");
  cmd->callback([options] {
    if (options->validator.policy == "help") {
      std::cout << describe_policies();
      return;
    }
    const int code =
        lossless_command(options->validator, options->appendix_a, options->trials, std::cout);
    if (!options->validator.out_dir.empty()) {
      std::cout << "wrote             " << options->validator.out_dir << "/result.json\n";
    }
    if (code != 0) throw CommandExit{code};
  });
}

}  // namespace sparksim::cli
