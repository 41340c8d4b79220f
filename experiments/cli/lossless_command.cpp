// `sparksim lossless`: the losslessness validator. Runs a registry policy on the exact token-level
// mode and G-tests the committed tokens against the target; `--appendix-a` reproduces the paper's
// counterexample; `--exact` / `--instance FILE` decide a small instance by enumeration (and
// re-check it by sampling); `--search` looks for a counterexample. Exit 0: no distortion detected
// (or none found); 3: distortion detected; 2: bad input.
#include <iostream>
#include <memory>

#include "common/input_error.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/lossless/exact_command.hpp"
#include "experiments/lossless/lossless_validator.hpp"
#include "policies/policy_registry.hpp"

namespace sparksim::cli {

namespace {

struct LosslessCommandOptions {
  LosslessOptions validator;
  bool appendix_a = false;
  std::int64_t trials = 1'000'000;
  bool exact = false;
  bool search = false;
  ExactCommandOptions exact_options;
};

// The statistical validator's options and `--appendix-a`.
void add_validator_options(CLI::App* cmd, LosslessCommandOptions& options) {
  LosslessOptions& o = options.validator;
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
  cmd->add_flag("--appendix-a", options.appendix_a,
                "reproduce the paper's Appendix A counterexample (retrospective vs greedy)");
  cmd->add_option("--trials", options.trials, "--appendix-a: one-step trials per policy")
      ->capture_default_str();
}

// `--exact`, `--instance` and `--search` with their options.
void add_exact_options(CLI::App* cmd, LosslessCommandOptions& options) {
  ExactCommandOptions& e = options.exact_options;
  cmd->add_flag("--exact", options.exact,
                "decide by enumeration on a small instance (the paper's Appendix A unless "
                "--instance is given): TV distance of the committed tokens, 0 iff lossless");
  cmd->add_option("--instance", e.instance_path,
                  "instance file to decide exactly and re-check by sampling (implies --exact; "
                  "--search writes this format)");
  cmd->add_flag("--search", options.search,
                "search small instances for a counterexample; prints and writes the simplest one");
  cmd->add_option("--budget-s", e.budget_s, "--search: wall-clock budget of the restarts")
      ->capture_default_str();
  cmd->add_option("--restarts", e.restarts, "--search: at most this many restarts (0 = budget)")
      ->capture_default_str();
  cmd->add_option("--samples", e.samples,
                  "--exact/--instance/--search: trials of the sampling re-check (0 = none)")
      ->capture_default_str();
  cmd->add_option("--counterexample", e.counterexample_path,
                  "--search: where to write the instance found (default DIR/counterexample.json "
                  "with --out, else ./counterexample_<policy>.json)");
}

// `--exact`, `--instance FILE` or `--search`: the options they share with the validator, then
// the run. Throws CommandExit with the exit code when it is not 0.
void run_exact_or_search(LosslessCommandOptions& options) {
  ExactCommandOptions& exact = options.exact_options;
  if (options.search && (options.exact || !exact.instance_path.empty())) {
    throw InputError("--search cannot be combined with --exact or --instance");
  }
  if (options.appendix_a)
    throw InputError(
        "--appendix-a cannot be combined with --exact, "
        "--instance or --search");
  exact.policy = options.validator.policy;
  exact.seed = options.validator.seed;
  exact.alpha = options.validator.alpha;
  exact.out_dir = options.validator.out_dir;
  const int code =
      options.search ? search_command(exact, std::cout) : exact_command(exact, std::cout);
  if (code != 0) throw CommandExit{code};
}

void run_lossless_command(LosslessCommandOptions& options) {
  if (options.validator.policy == "help") {
    std::cout << describe_policies();
    return;
  }
  if (options.search || options.exact || !options.exact_options.instance_path.empty()) {
    run_exact_or_search(options);
    return;
  }
  const int code =
      lossless_command(options.validator, options.appendix_a, options.trials, std::cout);
  if (!options.validator.out_dir.empty()) {
    std::cout << "wrote             " << options.validator.out_dir << "/result.json\n";
  }
  if (code != 0) throw CommandExit{code};
}

}  // namespace

void add_lossless_command(CLI::App& app) {
  auto options = std::make_shared<LosslessCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lossless",
      "test whether a verification policy preserves the target's output distribution (exact "
      "token-level mode; exit 0 lossless, 3 distorted)");
  add_validator_options(cmd, *options);
  add_exact_options(cmd, *options);
  cmd->add_option("--out", options->validator.out_dir, "output directory (writes DIR/result.json)");
  cmd->callback([options] { run_lossless_command(*options); });
}

}  // namespace sparksim::cli
