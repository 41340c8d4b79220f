// The shape of the `sparksim` command line: which commands sit at the top and which are grouped
// under `profile` and `calibrate`, the spellings those groups replaced (accepted for one more
// release with a warning), and the hidden `help-commands` listing that the test of docs/cli.md
// reads the tree from.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace sparksim::cli {

// Registers every command on the root app, groups included, plus the hidden `help-commands`.
void build_command_tree(CLI::App& app);

// The arguments to parse: argv unchanged, or, when argv[1] is a deprecated spelling, with it
// replaced by the new words (after one warning line on stderr). argv[0] is kept.
std::vector<std::string> replace_deprecated_spelling(int argc, const char* const* argv);

}  // namespace sparksim::cli
