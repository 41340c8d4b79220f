// Runs an arbitrary shell command for end-to-end tests that need more than the sparksim binary
// (a pseudo-terminal through `script`, a headless browser): output captured, exit code returned.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_harness.hpp"

namespace sparksim::testing {

// Runs `command` with /bin/sh in the source directory; stdout and stderr land in scratch.
inline CliResult run_shell(const std::string& command, const std::filesystem::path& scratch) {
  const auto log = scratch / "shell_output.txt";
  const std::string full = std::string("cd '") + SPARKSIM_SOURCE_DIR + "' && (" + command +
                           ") > '" + log.string() + "' 2>&1";
  const int status = std::system(full.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.output = read_file(log);
  return result;
}

}  // namespace sparksim::testing
