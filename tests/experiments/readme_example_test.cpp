// The README's `sparksim run` example is true: the command it shows, run by the real binary,
// prints the output the README shows, line for line, except the `wall` line (this machine's speed)
// and the `wrote` line's directory (the test writes to a scratch directory).
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/experiments/cli_harness.hpp"

namespace {

using sparksim::testing::read_file;
using sparksim::testing::run_cli;
using sparksim::testing::scratch_dir;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

struct ReadmeExample {
  std::string arguments;                  // after `build/sparksim `, continuation lines joined
  std::vector<std::string> output_lines;  // the indented block after the command, unindented
};

// The first indented `build/sparksim run` command and the indented block that follows it.
ReadmeExample readme_run_example() {
  const auto lines = lines_of(read_file(std::string(SPARKSIM_SOURCE_DIR) + "/README.md"));
  const std::string indent = "    ";
  const std::string command = indent + "build/sparksim run ";
  std::size_t i = 0;
  while (i < lines.size() && !starts_with(lines[i], command)) ++i;
  REQUIRE(i < lines.size());
  ReadmeExample example;
  std::string joined;
  for (; i < lines.size(); ++i) {
    std::string part = lines[i].substr(lines[i].find_first_not_of(' '));
    const bool continues = !part.empty() && part.back() == '\\';
    if (continues) part.pop_back();
    joined += part;
    if (!continues) break;
  }
  example.arguments = joined.substr(std::string("build/sparksim ").size());
  ++i;
  while (i < lines.size() && lines[i].empty()) ++i;
  for (; i < lines.size() && starts_with(lines[i], indent); ++i) {
    example.output_lines.push_back(lines[i].substr(indent.size()));
  }
  return example;
}

}  // namespace

TEST_CASE("the README's run example prints what the README says it prints") {
  ReadmeExample example = readme_run_example();
  REQUIRE(example.output_lines.size() >= 8);

  // Send the output to a scratch directory instead of the README's `--out DIR`.
  const auto scratch = scratch_dir("readme_example");
  const std::size_t out_at = example.arguments.find("--out ");
  REQUIRE(out_at != std::string::npos);
  const std::string readme_out_dir = example.arguments.substr(out_at + 6);
  REQUIRE(readme_out_dir.find(' ') == std::string::npos);  // --out comes last
  const std::string arguments =
      example.arguments.substr(0, out_at) + "--out '" + (scratch / "out").string() + "'";

  const auto result = run_cli(arguments, scratch);
  REQUIRE(result.exit_code == 0);
  const auto printed = lines_of(result.output);
  REQUIRE(printed.size() == example.output_lines.size());
  for (std::size_t k = 0; k < printed.size(); ++k) {
    const std::string& shown = example.output_lines[k];
    INFO("README line: " << shown << "\nprinted:     " << printed[k]);
    if (starts_with(shown, "wall ")) {
      CHECK(starts_with(printed[k], "wall "));
    } else if (starts_with(shown, "wrote ")) {
      CHECK(shown.find(readme_out_dir + "/{") != std::string::npos);
      CHECK(printed[k].find((scratch / "out").string() + "/{") != std::string::npos);
    } else {
      CHECK(printed[k] == shown);
    }
  }
  std::filesystem::remove_all(scratch);
}
