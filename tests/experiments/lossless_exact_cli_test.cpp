// `sparksim lossless --exact | --instance FILE | --search` through the real binary: exit codes
// (0 lossless, 3 distorted, 2 bad input with `path:line: what` and nothing written), the Appendix A
// figures in the output, and a searched counterexample that `--instance` re-checks.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

using namespace sparksim::testing;

namespace {

std::string data_path(const std::string& name) {
  return std::string(SPARKSIM_SOURCE_DIR) + "/tests/experiments/data/lossless/" + name;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("lossless --exact decides Appendix A: retrospective 0.85, greedy 0.7") {
  const auto dir = scratch_dir("lossless_exact");
  const auto retro = run_cli("lossless --exact --policy retrospective --samples 20000 --out '" +
                                 (dir / "retro").string() + "'",
                             dir);
  INFO(retro.output);
  CHECK(retro.exit_code == 3);
  CHECK(contains(retro.output, "A 0.85 vs 0.7; B 0.15 vs 0.3;"));
  CHECK(contains(retro.output, "verdict (exact)   distorted"));
  const auto result = read_json(dir / "retro" / "result.json");
  CHECK(result["exact"]["requests"][0]["first_token"]["A"]["committed"].get<double>() ==
        Approx(0.85).margin(1e-12));
  CHECK(result["sampled"]["verdict"] == "distorted");

  const auto greedy = run_cli("lossless --exact --policy greedy --samples 0", dir);
  INFO(greedy.output);
  CHECK(greedy.exit_code == 0);
  CHECK(contains(greedy.output, "A 0.7 vs 0.7; B 0.3 vs 0.3;"));
  CHECK(contains(greedy.output, "verdict (exact)   lossless"));
}

TEST_CASE("lossless --search writes a counterexample that --instance re-checks") {
  const auto dir = scratch_dir("lossless_search");
  const auto found = run_cli(
      "lossless --search --policy oracle --restarts 20 --samples 20000 "
      "--out '" +
          (dir / "out").string() + "'",
      dir);
  INFO(found.output);
  CHECK(found.exit_code == 3);
  CHECK(contains(found.output, "decision per outcome"));
  const auto file = dir / "out" / "counterexample.json";
  REQUIRE(std::filesystem::exists(file));
  const auto recheck = run_cli("lossless --instance '" + file.string() + "' --samples 20000", dir);
  INFO(recheck.output);
  CHECK(recheck.exit_code == 3);  // the policy comes from the file
  CHECK(contains(recheck.output, "verdict (exact)   distorted"));
  CHECK(contains(recheck.output, "verdict (sampled) distorted"));

  // The counterexamples kept as regression instances stay distorted.
  for (const char* kept : {"retrospective_counterexample.json", "oracle_counterexample.json"}) {
    const auto r = run_cli("lossless --instance '" + data_path(kept) + "' --samples 20000", dir);
    INFO(kept << "\n" << r.output);
    CHECK(r.exit_code == 3);
  }

  const auto none = run_cli(
      "lossless --search --policy greedy --restarts 10 --samples 0 "
      "--counterexample '" +
          (dir / "greedy.json").string() + "'",
      dir);
  INFO(none.output);
  CHECK(none.exit_code == 0);
  CHECK(contains(none.output, "no counterexample found within the budget (evidence, not proof"));
  CHECK(contains(none.output, "instance space"));
  CHECK_FALSE(std::filesystem::exists(dir / "greedy.json"));
}

TEST_CASE("lossless exact mode rejects bad input with exit 2 and writes nothing") {
  const auto dir = scratch_dir("lossless_exact_bad");
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string header =
      "{\n  \"tokens\": [\"A\", \"B\"],\n  \"gamma\": 1,\n  \"sps\": [1, 0.5],\n";
  const std::string negative =
      write("negative.json", header +
                                 "  \"target\": {\"A\": [0.5, 0.5], \"B\": [1.5, -0.5]},\n"
                                 "  \"draft\": [{\"A\": [0.5, 0.5], \"B\": [0.5, 0.5]}],\n"
                                 "  \"requests\": [{\"anchor\": \"A\"}]\n}\n");
  const std::string not_one =
      write("not_one.json", header +
                                "  \"target\": {\"A\": [0.5, 0.5], \"B\": [0.5, 0.5]},\n"
                                "  \"draft\": [{\"A\": [0.6, 0.6], \"B\": [0.5, 0.5]}],\n"
                                "  \"requests\": [{\"anchor\": \"A\"}]\n}\n");
  // 16 tokens, gamma 8, 2 requests: (16^8)^2 = 1.8e19 joint outcomes.
  std::string tokens, row, table;
  for (int t = 0; t < 16; ++t) {
    tokens += std::string(t ? ", " : "") + "\"T" + std::to_string(t) + "\"";
    row += std::string(t ? ", " : "") + "0.0625";
  }
  for (int t = 0; t < 16; ++t) {
    table += std::string(t ? ", " : "") + "\"T" + std::to_string(t) + "\": [" + row + "]";
  }
  std::string sps;
  for (int b = 0; b < 18; ++b) sps += std::string(b ? ", " : "") + "1";
  std::string draft;
  for (int k = 0; k < 8; ++k) draft += std::string(k ? ", " : "") + "{" + table + "}";
  const std::string large =
      write("large.json", "{\"tokens\": [" + tokens + "], \"gamma\": 8, \"sps\": [" + sps +
                              "], \"target\": {" + table + "}, \"draft\": [" + draft +
                              "], \"requests\": [{\"anchor\": \"T0\"}, {\"anchor\": \"T1\"}]}\n");
  const std::string long_block =
      write("long_block.json",
            "{\"tokens\": [\"A\", \"B\"], \"gamma\": 40, \"sps\": [1], \"requests\": "
            "[{\"anchor\": \"A\"}]}\n");
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--instance '" + negative + "' --policy greedy", "negative.json:5: target.B[1] is -0.5"},
      {"--instance '" + not_one + "' --policy greedy", "not_one.json:6: draft[0].A sums to 1.2"},
      {"--instance '" + large + "' --policy greedy", "= 18446744073709551616 joint outcomes"},
      {"--instance '" + long_block + "' --policy greedy",
       "long_block.json:1: too large to enumerate exactly: (V^gamma)^R = (2^40)^1 = 1099511627776 "
       "joint outcomes"},
      {"--instance '" + (dir / "missing.json").string() + "' --policy greedy", "missing.json"},
      {"--exact", "--policy SPEC is required"},
      {"--exact --policy no-such-policy", "unknown policy 'no-such-policy'"},
      {"--search --policy greedy --budget-s 0", "--budget-s must be in (0, 86400]"},
      {"--search --exact --policy greedy", "cannot be combined"},
      {"--exact --policy greedy --samples -1", "--samples must be in"},
  };
  for (const Case& c : cases) {
    const auto r = run_cli("lossless " + c.args + " --out '" + (dir / "out").string() + "'", dir);
    INFO(c.args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, c.message));
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
  }
}
