// sparksim entry point: builds the command tree, rewrites a deprecated spelling, parses and maps
// failures to exit codes: 0 success, 2 usage/configuration/input errors (nothing simulated, no
// output left), 1 runtime, 3 a command's own verdict (`sparksim lossless`: distorted).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "experiments/cli/command_tree.hpp"
#include "experiments/cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"sparksim: discrete-event simulator of LLM serving with speculative decoding"};
  app.require_subcommand(1);
  sparksim::cli::build_command_tree(app);
  // Owns the strings that `words` points into for the whole parse.
  const std::vector<std::string> args = sparksim::cli::replace_deprecated_spelling(argc, argv);
  std::vector<const char*> words;
  words.reserve(args.size());
  for (const std::string& a : args) words.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(words.size()), words.data());
  } catch (const sparksim::cli::CommandExit& e) {
    return e.code;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const sparksim::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "runtime error: %s\n", e.what());
    return 1;
  }
  return 0;
}
