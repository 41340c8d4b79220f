// Sweep configs: a good one expands into points in a stated order and survives a round trip
// through its resolved form; a bad one reports every problem at once, each at its line.
#include "experiments/sweep/sweep_config.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "common/input_error.hpp"
#include "common/json_file.hpp"

using namespace sparksim;
namespace fs = std::filesystem;

namespace {

const char* kGood = R"({
  "schema": "sparksim.sweep/1",
  "title": "two systems",
  "profile": "profiles/analytic/h100-sxm/qwen3-8b.json",
  "workload": {"synthetic": "prompt=fixed:100,output=fixed:20,duration_s=2"},
  "load": {"concurrency": [2, 8, 4]},
  "systems": [
    {"drafter": "dspark-7", "policies": ["static:k=3", "static:k=7"]},
    {"drafter": "mtp1", "policies": ["static:k=1"]}
  ],
  "seeds": [5, 1],
  "tok_s_per_user_percentile": 25,
  "tiers_tok_s_per_user": [80]
}
)";

std::string error_of(const std::string& text) {
  try {
    parse_sweep_config(JsonFile::parse(text, "cfg.json"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a sweep expands system-major, then load, then seed, in the config's order") {
  const SweepConfig c = parse_sweep_config(JsonFile::parse(kGood, "cfg.json"));
  REQUIRE(c.systems.size() == 3);
  CHECK(c.systems[1].label() == "dspark-7 + static:k=7");
  CHECK(c.systems[2].gamma == 1);
  CHECK(c.load_kind == LoadKind::kConcurrency);
  CHECK(c.percentile == 25);
  // The single mtp1 system is the default baseline.
  REQUIRE(c.baseline);
  CHECK(*c.baseline == 2);
  const auto points = expand_points(c);
  REQUIRE(points.size() == 18);
  CHECK(points[0].system == 0);
  CHECK(points[1].seed == 1);
  CHECK(points[2].load == 1);
  CHECK(points[17].system == 2);
  const RunOptions o = point_run_options(c, points[3]);  // system 0, load 8, seed 1
  CHECK(o.closed_loop_users == 8);
  CHECK(o.seed == 1);
  CHECK(o.policy == "static:k=3");
  CHECK(o.acceptance == RunOptions{}.acceptance);
}

TEST_CASE("the resolved config parses back to itself") {
  const SweepConfig c = parse_sweep_config(JsonFile::parse(kGood, "cfg.json"));
  const auto resolved = c.resolved();
  const SweepConfig back = parse_sweep_config(JsonFile::from_json(resolved, "resolved.json"));
  CHECK(back.resolved().dump() == resolved.dump());
  CHECK(back.point_count() == c.point_count());
}

TEST_CASE("a bad config lists every problem, each at its path and line") {
  const std::string bad = R"({
  "schema": "sparksim.sweep/1",
  "profile": "profiles/analytic/h100-sxm/qwen3-8b.json",
  "workload": {"synthetic": "prompt=fixed:100,output=fixed:20,duration_s=2"},
  "load": {"concurrency": []},
  "systems": [
    {"drafter": "dspark-7", "policies": ["fastest", "static:k=9"]},
    {"drafter": "medusa-3", "policies": ["static:k=1"]}
  ],
  "seeds": [1],
  "tok_s_per_user_percentile": 100,
  "tiers_tok_s_per_user": [80],
  "colour": "blue"
}
)";
  const std::string e = error_of(bad);
  INFO(e);
  CHECK_THAT(e, Catch::Contains("cfg.json:13: unknown key 'colour'"));
  CHECK_THAT(e, Catch::Contains("cfg.json:5: load.concurrency is empty: nothing to sweep"));
  CHECK_THAT(e, Catch::Contains("cfg.json:7: systems[0].policies[0]: unknown policy 'fastest'"));
  CHECK_THAT(e, Catch::Contains("cfg.json:7: systems[0].policies[1]: 'static:k=9'"));
  CHECK_THAT(e, Catch::Contains("cfg.json:8: systems[1].drafter: unknown drafter 'medusa-3'"));
  CHECK_THAT(e,
             Catch::Contains("cfg.json:11: tok_s_per_user_percentile is 100; must be in (0, 100)"));
  CHECK_THAT(e, Catch::Contains("cfg.json:12: tiers_tok_s_per_user needs a baseline"));
}

TEST_CASE("empty sweeps, repeated entries and a baseline outside the sweep are errors") {
  const std::string bad = R"({
  "schema": "sparksim.sweep/1",
  "profile": "p.json",
  "workload": {"trace": "t.csv"},
  "load": {"concurrency": [4, 4]},
  "systems": [],
  "seeds": [],
  "tok_s_per_user_percentile": 0,
  "baseline": {"drafter": "mtp1", "policy": "static:k=1"}
}
)";
  const std::string e = error_of(bad);
  INFO(e);
  CHECK_THAT(e, Catch::Contains("cfg.json:5: load.concurrency[1] repeats load 4"));
  CHECK_THAT(e, Catch::Contains("cfg.json:5: load.concurrency runs closed-loop users"));
  CHECK_THAT(e, Catch::Contains("cfg.json:6: systems is empty: nothing to sweep"));
  CHECK_THAT(e, Catch::Contains("cfg.json:7: seeds is empty: nothing to sweep"));
  CHECK_THAT(e, Catch::Contains("cfg.json:8: tok_s_per_user_percentile is 0"));
  CHECK_THAT(e, Catch::Contains("cfg.json:9: baseline 'mtp1 + static:k=1' is not one of"));
  CHECK(error_of(R"({"schema": "sparksim.sweep/1"})").find("profile is missing") !=
        std::string::npos);
}

TEST_CASE("loading checks the input files too, before any point runs") {
  const auto dir = testing::scratch_dir("sweep_config_inputs");
  const auto path = dir / "cfg.json";
  std::string text = kGood;
  text.replace(text.find("profiles/analytic/h100-sxm/qwen3-8b.json"),
               std::string("profiles/analytic/h100-sxm/qwen3-8b.json").size(),
               "no/such/profile.json");
  std::ofstream(path) << text;
  try {
    load_sweep_config(path.string());
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains(path.string() + ":4: profile: "));
    CHECK_THAT(std::string(e.what()), Catch::Contains("no/such/profile.json"));
  }
  fs::remove_all(dir);
}

TEST_CASE("the shard option i/N deals points round-robin and rejects malformed slices") {
  const ShardSpec s = parse_shard_spec("2/3");
  CHECK(s.index == 2);
  CHECK(s.count == 3);
  CHECK(s.contains(1));
  CHECK(s.contains(4));
  CHECK_FALSE(s.contains(0));
  for (const char* bad : {"0/3", "4/3", "1/0", "a/b", "2", "1/3x", ""}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_shard_spec(bad), InputError);
  }
}

TEST_CASE("SPS beliefs: engine.sps for all systems, a system's own sps, both in the points") {
  std::string text = kGood;
  text.replace(
      text.find("{\"drafter\": \"mtp1\", \"policies\": [\"static:k=1\"]}"),
      std::string("{\"drafter\": \"mtp1\", \"policies\": [\"static:k=1\"]}").size(),
      "{\"drafter\": \"mtp1\", \"policies\": [\"static:k=1\"]},\n"
      "    {\"drafter\": \"dspark-7\", \"policies\": [\"static:k=3\"], \"sps\": \"live\"}");
  text.replace(text.find("\"seeds\""), 0, "\"engine\": {\"sps\": \"reference\"},\n  ");
  const SweepConfig c = parse_sweep_config(JsonFile::parse(text, "cfg.json"));
  REQUIRE(c.systems.size() == 4);
  CHECK(c.sps == "reference");
  CHECK(c.systems[0].sps == "reference");
  CHECK(c.systems[0].label() == "dspark-7 + static:k=3");
  // Same drafter and policy, another belief: a distinct system, labelled by its belief.
  CHECK(c.systems[3].sps == "live");
  CHECK(c.systems[3].label() == "dspark-7 + static:k=3 (sps live)");
  const auto points = expand_points(c);
  CHECK(point_run_options(c, points.front()).sps == "reference");
  CHECK(point_run_options(c, points.back()).sps == "live");
  // The resolved form keeps both and parses back to itself.
  const auto resolved = c.resolved();
  const SweepConfig back = parse_sweep_config(JsonFile::from_json(resolved, "resolved.json"));
  CHECK(back.resolved().dump() == resolved.dump());
  CHECK(back.systems[3].label() == c.systems[3].label());
  // Without engine.sps the default belief is capture.
  CHECK(parse_sweep_config(JsonFile::parse(kGood, "cfg.json")).systems[0].sps == "capture");
}

TEST_CASE("an unknown SPS belief is refused at its line, in the engine and in a system") {
  std::string text = kGood;
  text.replace(text.find("\"seeds\""), 0, "\"engine\": {\"sps\": \"optimistic\"},\n  ");
  text.replace(text.find("\"policies\": [\"static:k=1\"]"), 0, "\"sps\": \"Live\", ");
  const std::string error = error_of(text);
  CHECK_THAT(error, Catch::Contains("engine.sps is 'optimistic'; valid: capture, live, reference"));
  CHECK_THAT(error, Catch::Contains("is 'Live'; valid: capture, live, reference"));
  CHECK_THAT(error, Catch::Contains("cfg.json:"));
}

TEST_CASE("workload.arrival_cv reaches every point, round-trips, and is refused in a closed loop") {
  const auto open_with = [](const std::string& cv) {
    return std::string(R"({
  "schema": "sparksim.sweep/1",
  "profile": "p.json",
  "workload": {"synthetic": "rate=4,prompt=fixed:100,output=fixed:20,duration_s=2",
               "arrival_cv": )") +
           cv + R"(},
  "load": {"rate_scale": [1, 2]},
  "systems": [{"drafter": "mtp1", "policies": ["static:k=1"]}],
  "seeds": [1]
}
)";
  };
  const std::string open = open_with("2.5");
  const SweepConfig c = parse_sweep_config(JsonFile::parse(open, "cfg.json"));
  CHECK(c.arrival_cv == 2.5);
  for (const auto& p : expand_points(c)) CHECK(point_run_options(c, p).arrival_cv == 2.5);
  const SweepConfig back = parse_sweep_config(JsonFile::parse(c.resolved().dump(2), "r.json"));
  CHECK(back.resolved() == c.resolved());
  // Unset: the resolved form has no key (earlier resolved configs stay as they were).
  CHECK_FALSE(parse_sweep_config(JsonFile::parse(kGood, "cfg.json"))
                  .resolved()["workload"]
                  .contains("arrival_cv"));

  const std::string closed = R"({
  "schema": "sparksim.sweep/1",
  "profile": "p.json",
  "workload": {"synthetic": "prompt=fixed:100,output=fixed:20,duration_s=2",
               "arrival_cv": 2},
  "load": {"concurrency": [2]},
  "systems": [{"drafter": "mtp1", "policies": ["static:k=1"]}],
  "seeds": [1]
}
)";
  CHECK_THAT(error_of(closed), Catch::Contains("cfg.json:5: workload.arrival_cv re-draws an "
                                               "open-loop workload's arrivals"));
  const std::string zero = open_with("0");
  CHECK_THAT(error_of(zero), Catch::Contains("cfg.json:5:"));
  CHECK_THAT(error_of(zero), Catch::Contains("arrival_cv"));
}
