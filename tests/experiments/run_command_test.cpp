// `sparksim run` end to end: the golden two-request scenario, determinism, closed loop, and the
// bad-input contract (exit 2, `path:line: what`, no output directory left behind).
#include <algorithm>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "experiments/run/run_experiment.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {
const std::string kGolden = "tests/experiments/golden/two_requests/";
const std::string kGoldenArgs = "run --trace " + kGolden + "trace.csv --profile " + kGolden +
                                "profile.json --drafter mtp1 --policy static:k=1 "
                                "--acceptance bernoulli:p=1 --seed 1 --out ";
}  // namespace

TEST_CASE("golden: two requests with constant 10 ms steps (hand-computed, see golden/README)") {
  const auto dir = scratch_dir("golden");
  const auto result = run_cli(kGoldenArgs + (dir / "out").string(), dir);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const auto s = read_json(dir / "out" / "summary.json");
  CHECK(s["requests_total"] == 2);
  CHECK(s["requests_completed"] == 2);
  CHECK(s["output_tokens"] == 8);
  CHECK(s["sim_duration_s"].get<double>() == Approx(0.03));
  CHECK(s["throughput_tok_s"].get<double>() == Approx(8 / 0.03));
  CHECK(s["ttft_ms"]["mean"].get<double>() == Approx(12.5));
  CHECK(s["ttft_ms"]["p10"].get<double>() == Approx(10.5));
  CHECK(s["tpot_ms"]["p50"].get<double>() == Approx(5.0));
  CHECK(s["e2e_s"]["p90"].get<double>() == Approx(0.0295));
  CHECK(s["tok_s_per_user"]["mean"].get<double>() == Approx(200.0));
  CHECK(s["tau_mean"].get<double>() == Approx(2.0));
  CHECK(s["verify_tokens_per_request_step_mean"].get<double>() == Approx(2.0));
  CHECK(s["rejected_draft_frac"].get<double>() == 0.0);
  CHECK(s["steps"] == 3);
  CHECK(s["request_steps"] == 3);
  CHECK(s["profile_source"] == "analytic");
  CHECK(s["load_report"]["rows_read"] == 2);
  const std::string requests = read_file(dir / "out" / "requests.csv");
  CHECK(requests.find("\n0,chat,0.000000000,100,5,0.000000000,0.010000000,0.030000000,0.000000,"
                      "10.000000,5.000000,0.030000000,200.000000,2,2.000000,2,2,0,100\n") !=
        std::string::npos);
  CHECK(fs::exists(dir / "out" / "config.json"));
  CHECK(fs::exists(dir / "out" / "timeseries.csv"));
  fs::remove_all(dir);
}

TEST_CASE("same seed gives byte-identical outputs (wall-clock fields aside)") {
  const auto dir = scratch_dir("determinism");
  const std::string args =
      "run --trace traces/azure_code_2023.csv --max-requests 1500 "
      "--profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-7 --policy static:k=4 "
      "--quiet --out ";
  for (const char* name : {"a", "b", "c"}) {
    const std::string seed_args = std::string(name) == "c" ? " --seed 12" : " --seed 11";
    const auto result = run_cli(args + (dir / name).string() + seed_args, dir);
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
  }
  auto strip = [](nlohmann::json s) {
    for (const char* key : kWallClockKeys) s.erase(key);
    return s.dump();
  };
  const auto a = read_json(dir / "a" / "summary.json");
  CHECK(strip(a) == strip(read_json(dir / "b" / "summary.json")));
  CHECK(strip(a) != strip(read_json(dir / "c" / "summary.json")));
  for (const char* file : {"requests.csv", "timeseries.csv", "config.json"}) {
    INFO(file);
    CHECK(read_file(dir / "a" / file) == read_file(dir / "b" / file));
  }
  fs::remove_all(dir);
}

TEST_CASE("closed-loop users keep at most N requests in flight and stop after duration_s") {
  const auto dir = scratch_dir("closed");
  const auto result = run_cli(
      "run --closed-loop-users 8 --synthetic "
      "rate=1,prompt=fixed:200,output=fixed:50,domain=code,duration_s=20 "
      "--profile profiles/analytic/h100-sxm/qwen3-4b.json --drafter dspark-7 --policy static:k=7 "
      "--quiet --out " +
          (dir / "out").string(),
      dir);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const auto s = read_json(dir / "out" / "summary.json");
  CHECK(s["requests_completed"] == s["requests_total"]);
  CHECK(s["requests_total"].get<int>() > 8);
  CHECK(s["output_tokens"].get<int>() == 50 * s["requests_total"].get<int>());
  const std::string series = read_file(dir / "out" / "timeseries.csv");
  std::istringstream lines(series);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    const double running = std::stod(line.substr(line.find(',') + 1));
    CHECK(running <= 8.0 + 1e-9);
  }
  fs::remove_all(dir);
}

namespace {

// Writes `content` to scratch/name and returns the path.
std::string write_input(const fs::path& dir, const std::string& name, const std::string& content) {
  std::ofstream(dir / name, std::ios::binary) << content;
  return (dir / name).string();
}

void expect_input_error(const std::string& args, const fs::path& dir, const std::string& message) {
  const auto out = dir / "out";
  const auto result = run_cli(args + " --out " + out.string(), dir);
  INFO(args << "\n" << result.output);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.output, Catch::Contains(message));
  CHECK_FALSE(fs::exists(out));
  // No staging directory left behind either.
  for (const auto& entry : fs::directory_iterator(dir)) {
    CHECK(entry.path().filename().string().find("partial") == std::string::npos);
  }
}

}  // namespace

TEST_CASE("bad input stops before simulating: exit 2, path:line, nothing written") {
  const auto dir = scratch_dir("bad_input");
  const std::string profile = " --profile profiles/analytic/h100-sxm/qwen3-8b.json";
  const std::string good =
      write_input(dir, "good.csv", "arrival_s,prompt_tokens,output_tokens,domain\n0,10,5,chat\n");

  expect_input_error("run --trace " + (dir / "missing.csv").string() + profile, dir,
                     (dir / "missing.csv").string() + ": ");
  const auto header = write_input(dir, "header.csv", "when,prompt,output\n0,10,5\n");
  expect_input_error("run --trace " + header + profile, dir, header + ":1: ");
  const auto negative =
      write_input(dir, "negative.csv",
                  "arrival_s,prompt_tokens,output_tokens,domain\n0,10,5,chat\n1,-3,5,chat\n");
  expect_input_error("run --trace " + negative + profile, dir, negative + ":3: ");
  const auto text =
      write_input(dir, "text.csv", "arrival_s,prompt_tokens,output_tokens,domain\n0,ten,5,chat\n");
  expect_input_error("run --trace " + text + profile, dir, text + ":2: ");
  const auto nan =
      write_input(dir, "nan.csv", "arrival_s,prompt_tokens,output_tokens,domain\nnan,10,5,chat\n");
  expect_input_error("run --trace " + nan + profile, dir, nan + ":2: ");
  expect_input_error("run --trace " + good + profile + " --drafter medusa-3", dir,
                     "unknown drafter 'medusa-3'; valid: none, mtp1, eagle3-G");
  expect_input_error("run --trace " + good + profile + " --policy fastest", dir,
                     "unknown policy 'fastest'; valid: static");
  expect_input_error("run --trace " + good + profile + " --acceptance magic", dir,
                     "unknown acceptance model 'magic'; valid: bernoulli");
  expect_input_error("run --trace " + good + profile + " --domain poetry", dir,
                     "unknown domain 'poetry'; valid: math, code, chat");

  // A profile without provenance.
  auto stripped =
      read_json(fs::path(SPARKSIM_SOURCE_DIR) / "profiles/analytic/h100-sxm/qwen3-8b.json");
  stripped.erase("provenance");
  const auto no_provenance = write_input(dir, "no_provenance.json", stripped.dump(2));
  expect_input_error("run --trace " + good + " --profile " + no_provenance, dir,
                     no_provenance + ":");
  // Several problems are reported together.
  const auto both = run_cli(
      "run --trace " + header + profile + " --drafter x --policy y --out " + (dir / "out").string(),
      dir);
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.output, Catch::Contains("unknown drafter") && Catch::Contains(header + ":1: ") &&
                              Catch::Contains("unknown policy"));
  fs::remove_all(dir);
}

namespace {

// A measured profile whose calibration sweep reached mtp1 only (as calibrate-fit writes one after
// `--drafters mtp1`): every step lasts 10 ms, drafting mtp1 costs nothing, the others are absent.
const std::string kMtp1OnlyProfile = R"({
  "schema": "sparksim.profile/1",
  "provenance": {
    "source": "measured",
    "gpu": "hand-written test gpu",
    "date": "2026-11-26",
    "tool": "hand-written for run_command_test",
    "git_sha": "none",
    "notes": "Drafters measured: mtp1. Not measured (not in the profile): eagle3, dflash, dspark."
  },
  "target": "golden-model",
  "gpus": 1,
  "memory": {"hbm_bytes": 80000000000, "weights_bytes": 16000000000,
             "memory_utilization": 0.9, "kv_bytes_per_token": 100000},
  "host_overhead_us": 0,
  "verify": {"fixed_us": 10000, "graph_buckets": [], "dense_tokens": [1, 100000],
             "dense_us": [0, 0], "kv_read_ns_per_context_token": 0, "attention_ns_per_pair": 0},
  "draft": {
    "mtp1": {"fixed_us": 0, "per_pass_us": 0, "per_token_ns": 0, "sequential_in_gamma": false,
             "tokens_scale_with_gamma": false, "kv_read_ns_per_context_token": 0,
             "kv_read_per_pass": false}
  },
  "sps": {"reference": "constant 100 steps/s", "tokens": [1, 100000], "steps_per_s": [100, 100]}
}
)";

}  // namespace

TEST_CASE("a drafter the profile has no cost for is refused: exit 2, path:line, nothing written") {
  const auto dir = scratch_dir("no_draft_cost");
  const std::string profile = write_input(dir, "mtp1_only.json", kMtp1OnlyProfile);
  const std::string trace = " --trace " + kGolden + "trace.csv --profile " + profile;
  // The "draft" key is on line 18 of the text above (counted by hand; checked against the text).
  const auto draft_at = kMtp1OnlyProfile.find("\"draft\"");
  REQUIRE(std::count(kMtp1OnlyProfile.begin(), kMtp1OnlyProfile.begin() + draft_at, '\n') + 1 ==
          18);
  for (const char* drafter : {"dflash-4", "eagle3-3", "dspark-7"}) {
    const std::string family = std::string(drafter).substr(0, std::string(drafter).find('-'));
    expect_input_error("run" + trace + " --drafter " + drafter + " --policy static:k=1", dir,
                       profile + ":18: the profile has no draft cost for " + family + " (drafter " +
                           drafter + ")");
  }
  // The drafter it measured, and no drafter at all, run on the same file.
  for (const char* drafter : {"mtp1", "none"}) {
    const auto out = dir / (std::string("ok_") + drafter);
    const auto result = run_cli("run" + trace + " --drafter " + drafter +
                                    " --policy static --seed 1 --quiet --out " + out.string(),
                                dir);
    INFO(result.output);
    CHECK(result.exit_code == 0);
    CHECK(fs::exists(out / "summary.json"));
  }
  fs::remove_all(dir);
}

TEST_CASE("policy help lists every registered policy with its safety flag") {
  const auto dir = scratch_dir("help");
  const auto result = run_cli("policies", dir);
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.output, Catch::Contains("static") && Catch::Contains("[lossless]"));
  fs::remove_all(dir);
}

TEST_CASE("closed-loop requests: the users together send exactly N, worked by hand") {
  // 10 ms per step (the golden two-request profile), 2 users, 5 requests of 100 + 3 tokens: a
  // request is one prefill step (first token) and two decode steps, 30 ms. Waves: requests 1-2 at
  // 0 ms, 3-4 at 30 ms, 5 alone at 60 ms (the budget is spent), the last token at 90 ms.
  const auto dir = scratch_dir("closed_requests");
  const auto result = run_cli(
      "run --closed-loop-users 2 --closed-loop-requests 5 --synthetic "
      "rate=1,prompt=fixed:100,output=fixed:3,domain=chat,duration_s=1000 "
      "--profile tests/experiments/golden/two_requests/profile.json --drafter none --quiet --out " +
          (dir / "out").string(),
      dir);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const auto s = read_json(dir / "out" / "summary.json");
  CHECK(s["requests_total"] == 5);
  CHECK(s["requests_completed"] == 5);
  CHECK(s["output_tokens"] == 15);
  CHECK(s["sim_duration_s"].get<double>() == Approx(0.090));
  CHECK(read_json(dir / "out" / "config.json")["closed_loop_requests"] == 5);
  const auto bad = run_cli(
      "run --closed-loop-requests 5 --synthetic rate=1 --profile "
      "tests/experiments/golden/two_requests/profile.json --out " +
          (dir / "bad").string(),
      dir);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--closed-loop-requests needs --closed-loop-users"));
  fs::remove_all(dir);
}

TEST_CASE("length scales: every request's tokens scaled, recorded, and refused in a closed loop") {
  // Oracle: the golden trace's own lengths (100/5 and 50/3 tokens) x 1.5 and x 2, rounded by
  // hand: prompts 150 and 75, outputs 10 and 6, so 16 output tokens in all.
  const auto dir = scratch_dir("length_scale");
  const auto r = run_cli(
      kGoldenArgs + (dir / "out").string() + " --prompt-length-scale 1.5 --output-length-scale 2",
      dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto s = read_json(dir / "out" / "summary.json");
  CHECK(s["output_tokens"] == 16);
  const auto config = read_json(dir / "out" / "config.json");
  CHECK(config["prompt_length_scale"].get<double>() == 1.5);
  CHECK(config["output_length_scale"].get<double>() == 2.0);
  const std::string requests = read_file(dir / "out" / "requests.csv");
  CHECK(requests.find("\n0,chat,0.000000000,150,10,") != std::string::npos);
  CHECK(requests.find("\n1,code,0.005000000,75,6,") != std::string::npos);
  // Unscaled runs record neither key (every earlier config.json stays as it was).
  const auto plain = run_cli(kGoldenArgs + (dir / "plain").string(), dir);
  REQUIRE(plain.exit_code == 0);
  CHECK_FALSE(read_json(dir / "plain" / "config.json").contains("prompt_length_scale"));

  const auto closed = run_cli(
      "run --synthetic prompt=fixed:10,output=fixed:5,duration_s=1 --closed-loop-users 2 "
      "--profile " +
          kGolden + "profile.json --drafter mtp1 --prompt-length-scale 2 --out " +
          (dir / "closed").string(),
      dir);
  CHECK(closed.exit_code == 2);
  CHECK_THAT(closed.output, Catch::Contains("--prompt-length-scale: a closed loop draws its "
                                            "lengths as it goes"));
  CHECK_FALSE(fs::exists(dir / "closed"));
  const auto bad = run_cli(kGoldenArgs + (dir / "bad").string() + " --output-length-scale 0", dir);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--output-length-scale must be a finite number > 0"));
  CHECK_FALSE(fs::exists(dir / "bad"));
  fs::remove_all(dir);
}

TEST_CASE("arrival cv: gaps re-drawn from the seed, recorded, and refused in a closed loop") {
  // The golden trace's first request stays at 0; the second's arrival is re-drawn (a gamma gap
  // at the trace's mean rate, 1 / 5 ms), the same for the same seed.
  const auto dir = scratch_dir("arrival_cv");
  const auto r = run_cli(kGoldenArgs + (dir / "out").string() + " --arrival-cv 2", dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(read_json(dir / "out" / "config.json")["arrival_cv"].get<double>() == 2.0);
  const std::string requests = read_file(dir / "out" / "requests.csv");
  CHECK(requests.find("\n0,chat,0.000000000,100,5,") != std::string::npos);
  CHECK(requests.find("\n1,code,0.005000000,50,3,") == std::string::npos);
  CHECK(read_file(dir / "out" / "summary.json").find("gamma renewal process, cv 2") !=
        std::string::npos);
  const auto again = run_cli(kGoldenArgs + (dir / "again").string() + " --arrival-cv 2", dir);
  REQUIRE(again.exit_code == 0);
  CHECK(read_file(dir / "again" / "requests.csv") == requests);
  const auto plain = run_cli(kGoldenArgs + (dir / "plain").string(), dir);
  REQUIRE(plain.exit_code == 0);
  CHECK_FALSE(read_json(dir / "plain" / "config.json").contains("arrival_cv"));

  const auto closed = run_cli(
      "run --synthetic prompt=fixed:10,output=fixed:5,duration_s=1 --closed-loop-users 2 "
      "--profile " +
          kGolden + "profile.json --drafter mtp1 --arrival-cv 2 --out " + (dir / "closed").string(),
      dir);
  CHECK(closed.exit_code == 2);
  CHECK_THAT(closed.output, Catch::Contains("--arrival-cv: a closed loop has no arrival process"));
  CHECK_FALSE(fs::exists(dir / "closed"));
  const auto bad = run_cli(kGoldenArgs + (dir / "bad").string() + " --arrival-cv 11", dir);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--arrival-cv must be in (0, 10]"));
  CHECK_FALSE(fs::exists(dir / "bad"));
  fs::remove_all(dir);
}
