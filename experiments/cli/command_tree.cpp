// The `sparksim` command tree. One meaning per verb: `profile SOURCE` writes a replica profile
// (a step-time model) from one source; `calibrate WHAT` fits a model's parameters to measurements
// and reports how well they fit. Every other top-level command is one task of its own. The flat
// spellings of before (profile-analytic, calibrate-fit, bare `profile --target ...`, ...) are
// rewritten to the new words before parsing, so they run the same code and print the same
// stdout; the only difference is one warning line on stderr. Delete kDeprecatedSpellings (and
// the bare-group rule) in the release after the one that introduced the groups.
#include "experiments/cli/command_tree.hpp"

#include <array>
#include <cstdio>
#include <iostream>
#include <string_view>

#include "experiments/cli/commands.hpp"

namespace sparksim::cli {

namespace {

struct DeprecatedSpelling {
  std::string_view old_word;
  std::string_view group;
  std::string_view command;
};

constexpr std::array<DeprecatedSpelling, 8> kDeprecatedSpellings{{
    {"profile-analytic", "profile", "analytic"},
    {"profile-measured-db", "profile", "measured-db"},
    {"profile-moe", "profile", "moe"},
    {"fit-telemetry", "profile", "telemetry"},
    {"recalibrate-analytic", "calibrate", "roofline"},
    {"calibrate-fit", "calibrate", "kernels-fit"},
    {"calibrate-fidelity", "calibrate", "kernels-fidelity"},
    {"heterogeneity", "calibrate", "heterogeneity"},
}};

// `profile` and `calibrate` were commands before they were groups: followed directly by an
// option, they still mean the old command.
constexpr std::array<DeprecatedSpelling, 2> kFormerCommandsNowGroups{{
    {"profile", "profile", "kernels"},
    {"calibrate", "calibrate", "confidence"},
}};

void warn_deprecated(std::string_view old_spelling, const DeprecatedSpelling& now) {
  std::fprintf(stderr,
               "sparksim: '%.*s' is deprecated; use '%.*s %.*s' (the old spelling goes in the "
               "next release)\n",
               static_cast<int>(old_spelling.size()), old_spelling.data(),
               static_cast<int>(now.group.size()), now.group.data(),
               static_cast<int>(now.command.size()), now.command.data());
}

bool is_option_but_not_help(std::string_view word) {
  return word.size() > 1 && word[0] == '-' && word != "-h" && word != "--help";
}

CLI::App* add_group(CLI::App& app, const std::string& name, const std::string& description) {
  CLI::App* group = app.add_subcommand(name, description);
  group->require_subcommand(1);
  return group;
}

// Depth first, in registration order, one command path per line with its help line after a tab;
// hidden commands (empty group) are left out, as `--help` leaves them out.
void print_command_tree(const CLI::App& app, const std::string& prefix) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_group().empty()) continue;
    const std::string path = prefix + sub->get_name();
    std::cout << path << '\t' << sub->get_description() << '\n';
    print_command_tree(*sub, path + " ");
  }
}

}  // namespace

void build_command_tree(CLI::App& app) {
  add_run_command(app);
  add_cluster_command(app);
  add_plan_command(app);
  add_pareto_command(app);
  add_merge_command(app);
  add_slo_command(app);
  add_v4_topologies_command(app);
  add_sensitivity_command(app);
  add_step_time_command(app);
  add_policies_command(app);
  add_lossless_command(app);
  add_validate_command(app);

  CLI::App* profile = add_group(
      app, "profile",
      "write a replica profile (the step-time model a run reads) from one source: analytic, "
      "kernels, measured-db, moe or telemetry");
  add_profile_analytic_command(*profile);
  add_profile_kernels_command(*profile);
  add_profile_measured_db_command(*profile);
  add_profile_moe_command(*profile);
  add_profile_telemetry_command(*profile);

  CLI::App* calibrate = add_group(
      app, "calibrate",
      "fit a model's parameters to measurements and report the fit: confidence, heterogeneity, "
      "kernels-fit, kernels-fidelity or roofline");
  add_calibrate_confidence_command(*calibrate);
  add_calibrate_heterogeneity_command(*calibrate);
  add_calibrate_kernels_commands(*calibrate);
  add_calibrate_roofline_command(*calibrate);

  CLI::App* tree = app.add_subcommand(
      "help-commands", "print every command path and its help line (what docs/cli.md must cover)");
  tree->group("");  // hidden: a tool for the docs test, not for users
  tree->callback([&app] { print_command_tree(app, ""); });
}

std::vector<std::string> replace_deprecated_spelling(int argc, const char* const* argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() < 2) return args;
  const std::string_view word = args[1];
  for (const DeprecatedSpelling& d : kDeprecatedSpellings) {
    if (word != d.old_word) continue;
    warn_deprecated(word, d);
    args[1] = d.command;
    args.insert(args.begin() + 1, std::string(d.group));
    return args;
  }
  for (const DeprecatedSpelling& d : kFormerCommandsNowGroups) {
    if (word != d.old_word || args.size() < 3 || !is_option_but_not_help(args[2])) continue;
    warn_deprecated(std::string(word) + " " + args[2] + " ...", d);
    args.insert(args.begin() + 2, std::string(d.command));
    return args;
  }
  return args;
}

}  // namespace sparksim::cli
