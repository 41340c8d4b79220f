// The configs shipped in experiments/configs/ stay loadable: every one passes the full validation
// (profile, trace, drafters, policies, tiers and baseline) with no problem at all, and the main
// experiment compares what the README says it compares.
#include <algorithm>
#include <filesystem>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "experiments/plan/plan_config.hpp"
#include "experiments/sensitivity/sensitivity_config.hpp"
#include "experiments/sweep/sweep_config.hpp"
#include "experiments/sweep/topology_sweep_config.hpp"

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
    const std::string relative = fs::relative(path, SPARKSIM_SOURCE_DIR).string();
    if (JsonFile::load(relative).root().value("schema", "") == kTopologySweepSchema) {
      // A V4 topology sweep: its structure, then the sweep config it repeats (checked below as a
      // file of its own) and its extra profiles.
      TopologySweepConfig t;
      try {
        t = load_topology_sweep_config(relative);
      } catch (const InputError& e) {
        FAIL(e.what());
      }
      CHECK(fs::exists(fs::path(SPARKSIM_SOURCE_DIR) / t.sweep_path));
      for (const std::string& extra : t.extra_profiles) {
        CHECK(fs::exists(fs::path(SPARKSIM_SOURCE_DIR) / extra));
      }
      CHECK(t.published);
      continue;
    }
    if (JsonFile::load(relative).root().value("schema", "") == kPlanSchema) {
      // A capacity plan (a sensitivity study's experiment): plan's own checks, and a baseline.
      try {
        CHECK(load_plan_config(relative).baseline);
      } catch (const InputError& e) {
        FAIL(e.what());
      }
      continue;
    }
    if (JsonFile::load(relative).root().value("schema", "") == kSensitivitySchema) {
      // A sensitivity study: its inputs at both ends prepared against the comparison it varies.
      try {
        const SensitivityConfig sc = load_sensitivity_config(relative);
        CHECK(sc.inputs.size() >= 6);
      } catch (const InputError& e) {
        FAIL(e.what());
      }
      continue;
    }
    SweepConfig c;
    try {
      c = load_sweep_config(relative);
    } catch (const InputError& e) {
      FAIL(e.what());  // every problem, one per line
    }
    CHECK(c.point_count() > 0);
    // Every bundled profile says which kind it is in its label: the main experiment's is
    // measured-db, the V4 configs run telemetry-fitted profiles, the rest analytic ones.
    if (path.filename() == "dspark_vs_mtp1.json") {
      CHECK(c.profile_source == "measured-db");
      CHECK_THAT(c.profile_label, Catch::Contains("MEASURED-DB") && Catch::Contains("vLLM 0.24.0"));
    } else if (c.profile_source == "telemetry") {
      CHECK_THAT(c.profile_label, Catch::Contains("TELEMETRY"));
    } else {
      CHECK(c.profile_source == "analytic");
      CHECK_THAT(c.profile_label, Catch::Contains("ANALYTIC"));
    }
    CHECK(c.baseline);
    CHECK_FALSE(c.tiers_tok_s_per_user.empty());
    CHECK(c.seeds.size() >= 3);
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
  CHECK(j.at("profile") == "profiles/measured-db/h100-sxm/qwen3-8b.json");
  CHECK(j.at("workload").at("trace") == "traces/azure_conv_2023.csv");
  CHECK(j.at("load").contains("rate_scale"));
}

TEST_CASE("the staircase config runs greedy and async-topk on an SPS curve with steps") {
  const auto j = JsonFile::load("experiments/configs/greedy_vs_async_topk_staircase.json").root();
  const auto& dspark = j.at("systems").at(0);
  CHECK(dspark.at("drafter") == "dspark-7");
  CHECK(dspark.at("policies") == nlohmann::json::array({"greedy", "async-topk"}));
  const auto profile = JsonFile::load(j.at("profile").get<std::string>()).root();
  // A staircase: one token past a 128-token graph bucket SPS falls by a step (more than 10% up to
  // 513 tokens; the steps shrink relative to the growing step time beyond).
  const auto& tokens = profile.at("sps").at("tokens");
  const auto& sps = profile.at("sps").at("steps_per_s");
  const auto at = [&](int b) {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (tokens[i].get<int>() == b) return sps[i].get<double>();
    }
    FAIL("no SPS point at " << b);
    return 0.0;
  };
  for (int b : {128, 256, 512}) {
    INFO(b);
    CHECK(at(b + 1) < 0.9 * at(b));
  }
}

TEST_CASE("the threshold sweep covers several thresholds against async-topk and MTP-1") {
  const auto j = JsonFile::load("experiments/configs/threshold_sweep.json").root();
  std::vector<std::string> policies;
  for (const auto& p : j.at("systems").at(0).at("policies")) policies.push_back(p);
  CHECK(std::count_if(policies.begin(), policies.end(),
                      [](const std::string& p) { return p.rfind("threshold:t=", 0) == 0; }) >= 3);
  CHECK(std::find(policies.begin(), policies.end(), "async-topk") != policies.end());
  CHECK(j.at("systems").at(1).at("drafter") == "mtp1");
}
