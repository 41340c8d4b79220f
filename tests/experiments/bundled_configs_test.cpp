// The configs shipped in experiments/configs/ stay loadable: every one passes the full validation
// (profile, trace, drafters, policies, tiers and baseline), except that a policy another issue has
// not landed yet may be reported unknown, and nothing else may be wrong.
#include <algorithm>
#include <filesystem>
#include <sstream>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "experiments/sweep_config.hpp"

using namespace sparksim;
namespace fs = std::filesystem;

TEST_CASE("every bundled experiment config validates") {
  const fs::path dir = fs::path(SPARKSIM_SOURCE_DIR) / "experiments" / "configs";
  std::vector<fs::path> configs;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".json") configs.push_back(e.path());
  }
  std::sort(configs.begin(), configs.end());
  REQUIRE(configs.size() >= 4);
  CHECK(fs::exists(dir / "dspark_vs_mtp1.json"));
  for (const auto& path : configs) {
    INFO(path.string());
    try {
      const SweepConfig c = load_sweep_config(fs::relative(path, SPARKSIM_SOURCE_DIR).string());
      CHECK(c.point_count() > 0);
      CHECK(c.profile_source == "analytic");
      CHECK_THAT(c.profile_label, Catch::Contains("ANALYTIC"));
      CHECK(c.baseline);
      CHECK_FALSE(c.tiers_tok_s_per_user.empty());
      CHECK(c.seeds.size() >= 3);
    } catch (const InputError& e) {
      // Only not-yet-landed policies may be missing.
      std::istringstream lines(e.what());
      std::string line;
      while (std::getline(lines, line)) {
        INFO(line);
        CHECK_THAT(line, Catch::Contains("unknown policy"));
      }
    }
  }
}

TEST_CASE("the main experiment compares DSpark with MTP-1 and full-block verification") {
  // Read as plain JSON: this checks the config's content, whichever policies have landed.
  const auto j = JsonFile::load("experiments/configs/dspark_vs_mtp1.json").root();
  std::vector<std::string> labels;
  for (const auto& s : j.at("systems")) {
    for (const auto& p : s.at("policies")) {
      labels.push_back(s.at("drafter").get<std::string>() + " + " + p.get<std::string>());
    }
  }
  CHECK(labels == std::vector<std::string>{"dspark-7 + async-topk", "dspark-7 + greedy",
                                           "dspark-7 + static:k=7", "mtp1 + static:k=1"});
  CHECK(j.at("baseline").at("drafter") == "mtp1");
  CHECK(j.at("baseline").at("policy") == "static:k=1");
  CHECK(j.at("profile") == "profiles/analytic/h100/qwen3-8b.json");
  CHECK(j.at("workload").at("trace") == "traces/azure_conv_2023.csv");
  CHECK(j.at("load").contains("rate_scale"));
}
