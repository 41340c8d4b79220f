// The `sparksim` subcommands: one file per subcommand, each registering itself on the root app.
// A command's callback parses into a plain options struct, validates it (throwing InputError for
// bad input, before any work starts) and runs. main() owns the exit codes.
#pragma once

#include <CLI/CLI.hpp>

namespace sparksim::cli {

void add_run_command(CLI::App& app);      // run_command.cpp: one simulation, writes DIR/
void add_profile_command(CLI::App& app);  // profile_command.cpp: analytic profile generator
void add_policies_command(
    CLI::App& app);  // run_command.cpp: `sparksim policies` lists the registry

}  // namespace sparksim::cli
