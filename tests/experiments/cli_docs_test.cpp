// docs/cli.md against the command line itself, so the page cannot drift: every command and group
// the binary has (its hidden `help-commands` listing, cross-checked against what `--help` shows)
// has a `## ` section in docs/cli.md whose heading names it as `sparksim PATH`, and every command
// a heading names exists. Help lines follow one style: a lowercase verb phrase, no final period.
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "tests/experiments/cli_harness.hpp"

namespace sparksim::testing {
namespace {

// Command path ("profile analytic") -> its help line.
std::map<std::string, std::string> command_tree() {
  const auto dir = scratch_dir("cli_docs_tree");
  const CliStreams r = run_cli_streams("help-commands", dir);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, std::string> tree;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const auto tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    tree[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return tree;
}

// The names under "Subcommands:" in `sparksim ARGS --help`.
std::set<std::string> help_subcommands(const std::string& args) {
  const auto dir = scratch_dir("cli_docs_help");
  const CliStreams r = run_cli_streams(args + " --help", dir);
  REQUIRE(r.exit_code == 0);
  std::set<std::string> names;
  std::istringstream lines(r.out.substr(r.out.find("Subcommands:")));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line) && line.rfind("  ", 0) == 0) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    names.insert(name);
  }
  return names;
}

// The children of `prefix` (a group path plus a space, or "" for the root) in the tree.
std::set<std::string> children(const std::map<std::string, std::string>& tree,
                               const std::string& prefix) {
  std::set<std::string> names;
  for (const auto& [path, help] : tree) {
    if (path.rfind(prefix, 0) != 0) continue;
    const std::string rest = path.substr(prefix.size());
    if (!rest.empty() && rest.find(' ') == std::string::npos) names.insert(rest);
  }
  return names;
}

// The command each `## ` heading of docs/cli.md names: the first `sparksim PATH` in backticks.
std::set<std::string> documented_commands() {
  std::set<std::string> documented;
  std::istringstream lines(read_file(std::string(SPARKSIM_SOURCE_DIR) + "/docs/cli.md"));
  const std::regex named("^## [^`]*`sparksim ([a-z0-9 -]+)`");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, named)) documented.insert(m[1].str());
  }
  return documented;
}

TEST_CASE("help-commands lists what --help shows, at every level", "[cli][docs]") {
  const auto tree = command_tree();
  REQUIRE(tree.size() > 10);
  // Related commands are grouped so that a newcomer's first `--help` stays short.
  // 14 since `sensitivity` (issue 34 asks for it at the top level, beside pareto/slo/plan).
  CHECK(children(tree, "").size() <= 14);
  CHECK(children(tree, "") == help_subcommands(""));
  for (const std::string group : {"profile", "calibrate"}) {
    INFO(group);
    REQUIRE(tree.count(group) == 1);
    CHECK(children(tree, group + " ") == help_subcommands(group));
  }
}

TEST_CASE("docs/cli.md has a section for every command and documents no other", "[cli][docs]") {
  const auto tree = command_tree();
  const auto documented = documented_commands();
  for (const auto& [path, help] : tree) {
    INFO("`sparksim " << path << "` has no `## ` section in docs/cli.md");
    CHECK(documented.count(path) == 1);
  }
  for (const std::string& path : documented) {
    INFO("docs/cli.md documents `sparksim " << path << "`, which the binary does not have");
    CHECK(tree.count(path) == 1);
  }
}

TEST_CASE("every help line is a lowercase phrase without a final period", "[cli][docs]") {
  for (const auto& [path, help] : command_tree()) {
    INFO(path << ": " << help);
    REQUIRE_FALSE(help.empty());
    CHECK(std::islower(static_cast<unsigned char>(help.front())));
    CHECK(help.back() != '.');
  }
}

}  // namespace

TEST_CASE("docs/cli.md lists exactly the engine presets --engine accepts", "[cli][docs]") {
  // ENGINE@VERSION names in `run --help`'s --engine line against those docs/cli.md writes in
  // backticks.
  const auto dir = scratch_dir("cli_docs_engine");
  const CliStreams r = run_cli_streams("run --help", dir);
  REQUIRE(r.exit_code == 0);
  const std::regex name("[a-z]+@[0-9]+(\\.[0-9]+)*");
  std::set<std::string> accepted;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("--engine") == std::string::npos) continue;
    for (std::sregex_iterator it(line.begin(), line.end(), name), end; it != end; ++it) {
      accepted.insert(it->str());
    }
  }
  const std::string docs = read_file(std::string(SPARKSIM_SOURCE_DIR) + "/docs/cli.md");
  const std::regex quoted("`([a-z]+@[0-9]+(\\.[0-9]+)*)`");
  std::set<std::string> documented;
  for (std::sregex_iterator it(docs.begin(), docs.end(), quoted), end; it != end; ++it) {
    documented.insert((*it)[1].str());
  }
  CHECK(accepted.size() >= 4);
  CHECK(accepted == documented);
}

}  // namespace sparksim::testing
