// Runs the real `sparksim` binary for end-to-end tests: captures exit code and output, and makes
// a fresh scratch directory per test.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <unistd.h>

namespace sparksim::testing {

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sparksim_cli_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `args` is appended to the binary path as-is (the caller quotes what needs quoting).
inline CliResult run_cli(const std::string& args, const std::filesystem::path& scratch) {
  const auto log = scratch / "cli_output.txt";
  const std::string command = std::string("cd '") + SPARKSIM_SOURCE_DIR + "' && '" +
                              SPARKSIM_BINARY + "' " + args + " > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.output = read_file(log);
  return result;
}

// stdout and stderr kept apart, for tests that hold stdout to byte equality while stderr may
// differ (a deprecated spelling's warning).
struct CliStreams {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline CliStreams run_cli_streams(const std::string& args, const std::filesystem::path& scratch) {
  const auto out = scratch / "cli_stdout.txt";
  const auto err = scratch / "cli_stderr.txt";
  const std::string command = std::string("cd '") + SPARKSIM_SOURCE_DIR + "' && '" +
                              SPARKSIM_BINARY + "' " + args + " > '" + out.string() + "' 2> '" +
                              err.string() + "'";
  const int status = std::system(command.c_str());
  CliStreams result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_file(out);
  result.err = read_file(err);
  return result;
}

inline nlohmann::json read_json(const std::filesystem::path& path) {
  return nlohmann::json::parse(read_file(path));
}

}  // namespace sparksim::testing
