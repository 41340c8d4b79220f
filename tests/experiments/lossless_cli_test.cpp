// `sparksim lossless` through the real binary: exit codes (0 lossless, 3 distorted, 2 bad input,
// with no output left behind), DIR/result.json, and the --appendix-a output.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "policies/policy_registry.hpp"

using namespace sparksim::testing;

namespace {

bool registered(const std::string& name) {
  for (const auto& row : sparksim::policy_registry()) {
    if (row.name == name) return true;
  }
  WARN("policy '" << name << "' is not registered yet: its CLI check did not run");
  return false;
}

}  // namespace

TEST_CASE("lossless exits 0 for a lossless policy and writes result.json") {
  const auto dir = scratch_dir("lossless_static");
  const auto r = run_cli("lossless --policy static:k=3 --requests 1400 --seed 4 --out '" +
                             (dir / "out").string() + "'",
                         dir);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("verdict           lossless") != std::string::npos);
  const auto result = read_json(dir / "out" / "result.json");
  CHECK(result["verdict"] == "lossless");
  CHECK(result["policy"] == "static:k=3");
  CHECK(result["requests"] == 1400);
  CHECK(result["p_value"].get<double>() >= 0.01);
}

TEST_CASE("lossless exits 3 for a distorting policy") {
  REQUIRE(registered("oracle"));
  const auto dir = scratch_dir("lossless_oracle");
  const auto r =
      run_cli("lossless --policy oracle --requests 1400 --drafter autoregressive --out '" +
                  (dir / "out").string() + "'",
              dir);
  INFO(r.output);
  CHECK(r.exit_code == 3);
  const auto result = read_json(dir / "out" / "result.json");
  CHECK(result["verdict"] == "distorted");
  CHECK(result["drafter"] == "autoregressive");
}

TEST_CASE("lossless rejects bad input with exit 2 and leaves nothing") {
  const auto dir = scratch_dir("lossless_bad");
  for (const std::string& args :
       {std::string("lossless --policy no-such-policy"), std::string("lossless"),
        std::string("lossless --policy static --drafter lookahead"),
        std::string("lossless --policy static --requests 0"),
        std::string("lossless --policy static --model token-level:vocab=1"),
        std::string("lossless --appendix-a --trials 10"),
        std::string("lossless --policy static --requests many")}) {
    const auto r = run_cli(args + " --out '" + (dir / "out").string() + "'", dir);
    INFO(args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
  }
}

TEST_CASE("lossless --appendix-a prints and writes both probabilities") {
  REQUIRE(registered("retrospective"));
  REQUIRE(registered("greedy"));
  const auto dir = scratch_dir("lossless_appendix_a");
  const auto r =
      run_cli("lossless --appendix-a --trials 200000 --out '" + (dir / "out").string() + "'", dir);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("retrospective:") != std::string::npos);
  CHECK(r.output.find("greedy:") != std::string::npos);
  const auto result = read_json(dir / "out" / "result.json");
  // 200 000 trials: standard error 0.0008, so ±0.005 is > 6 standard errors.
  CHECK(result["retrospective_p_a"].get<double>() == Approx(0.85).margin(0.005));
  CHECK(result["greedy_p_a"].get<double>() == Approx(0.70).margin(0.005));
}
