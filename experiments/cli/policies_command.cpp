// `sparksim policies`: prints the verification-policy registry, one row per policy with its
// parameters and whether it is lossless by construction.
#include <iostream>

#include "experiments/cli/commands.hpp"
#include "policies/policy_registry.hpp"

namespace sparksim::cli {

void add_policies_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("policies", "list the verification policies");
  cmd->callback([] { std::cout << describe_policies(); });
}

}  // namespace sparksim::cli
