// Acceptance models through the real binary: a run replayed from its own acceptance log
// reproduces its summary exactly; `sparksim calibrate confidence` fits STS from a simulated run
// and from a log; a Spec-Bench replay drives a run; `sparksim calibrate heterogeneity` prints its
// comparison; bad acceptance input exits 2 with `path:line`.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "experiments/run/run_experiment.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {

const std::string kWorkload =
    " --trace traces/azure_conv_2023.csv --max-requests 400 "
    "--profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-5 --seed 4 --quiet";

nlohmann::json without_wall_clock(nlohmann::json s) {
  for (const char* key : kWallClockKeys) s.erase(key);
  return s;
}

std::string write_input(const fs::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name, std::ios::binary) << text;
  return (dir / name).string();
}

}  // namespace

TEST_CASE("replaying a run's acceptance log under the same policy reproduces its summary") {
  const auto dir = scratch_dir("acceptance_replay");
  const std::string log = (dir / "acceptance.csv").string();
  // greedy reads the confidences, so its replay also checks that they read back bit-exact.
  for (const char* policy : {"greedy", "static:k=3", "static:k=5"}) {
    INFO(policy);
    const auto written =
        run_cli("run" + kWorkload + " --policy " + policy + " --write-acceptance-log " + log +
                    " --out " + (dir / "a").string(),
                dir);
    INFO(written.output);
    REQUIRE(written.exit_code == 0);
    REQUIRE(fs::exists(log));
    const auto replayed = run_cli("run" + kWorkload + " --policy " + policy + " --acceptance-log " +
                                      log + " --out " + (dir / "b").string(),
                                  dir);
    INFO(replayed.output);
    REQUIRE(replayed.exit_code == 0);
    const auto a = read_json(dir / "a" / "summary.json");
    const auto b = read_json(dir / "b" / "summary.json");
    CHECK(without_wall_clock(a) == without_wall_clock(b));
    CHECK(read_file(dir / "a" / "requests.csv") == read_file(dir / "b" / "requests.csv"));
    CHECK(read_file(dir / "a" / "timeseries.csv") == read_file(dir / "b" / "timeseries.csv"));
    CHECK(a["acceptance"] == "calibrated");
    CHECK(read_json(dir / "b" / "config.json")["acceptance"] == "replay:log=" + log);
  }
  // Under a policy that verifies fewer drafts, requests outlast their records; the summary
  // says how many steps reused them.
  const auto fewer = run_cli("run" + kWorkload + " --policy static:k=1 --acceptance-log " + log +
                                 " --out " + (dir / "c").string(),
                             dir);
  REQUIRE(fewer.exit_code == 0);
  const auto notes = read_json(dir / "c" / "summary.json")["acceptance_notes"];
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0].get<std::string>(), Catch::Contains("reused its records"));
  fs::remove_all(dir);
}

TEST_CASE("calibrate confidence fits STS on a simulated run and on a log: held-out ECE <= 1.5%") {
  const auto dir = scratch_dir("acceptance_calibrate");
  const std::string sts = (dir / "sts.json").string();
  const auto fitted = run_cli(
      "calibrate confidence --trace traces/azure_conv_2023.csv --max-requests 1500 "
      "--profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-7 "
      "--out " +
          sts,
      dir);
  INFO(fitted.output);
  REQUIRE(fitted.exit_code == 0);
  // The table starts on its own line, however long the source description is.
  CHECK_THAT(fitted.output,
             Catch::Contains("\npos  temperature   ECE before") && Catch::Contains("\nmean "));
  const auto j = read_json(sts);
  CHECK(j["gamma"] == 7);
  CHECK(j["temperatures"].size() == 7);
  const double before = j["heldout_before"]["mean_ece"].get<double>();
  const double after = j["heldout_after"]["mean_ece"].get<double>();
  CHECK(before >= 0.03);  // the raw head is over-confident as published
  CHECK(after <= 0.015);
  // Temperature scaling keeps each position's order; the products' AUC moves by < 0.005.
  CHECK(j["heldout_after"]["mean_roc_auc"].get<double>() ==
        Approx(j["heldout_before"]["mean_roc_auc"].get<double>()).margin(0.005));

  // The temperatures load into the model; a run with them logs calibrated confidences, and
  // calibrating that log again finds temperatures near 1.
  const std::string log = (dir / "after_sts.csv").string();
  const auto run = run_cli(
      "run --trace traces/azure_conv_2023.csv --max-requests 1500 "
      "--profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-7 "
      "--policy static:k=7 --acceptance calibrated:sts=" +
          sts + " --write-acceptance-log " + log + " --quiet --out " + (dir / "run").string(),
      dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto again = run_cli(
      "calibrate confidence --acceptance-log " + log + " --out " + (dir / "sts2.json").string(),
      dir);
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  const auto j2 = read_json(dir / "sts2.json");
  CHECK(j2["heldout_before"]["mean_ece"].get<double>() <= 0.015);
  for (const auto& t : j2["temperatures"]) CHECK(t.get<double>() == Approx(1.0).margin(0.12));
  fs::remove_all(dir);
}

TEST_CASE("a Spec-Bench replay drives a run with EAGLE's recorded acceptance") {
  const auto dir = scratch_dir("acceptance_specbench");
  const std::string trace = (dir / "specbench.csv").string();
  const auto het = run_cli("calibrate heterogeneity --replicas 2 --write-trace " + trace, dir);
  INFO(het.output);
  REQUIRE(het.exit_code == 0);
  CHECK_THAT(het.output, Catch::Contains("| translation | chat | 80 |") &&
                             Catch::Contains("per-step accepted length"));
  const auto run =
      run_cli("run --trace " + trace +
                  " --profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter eagle3-5 "
                  "--policy static:k=5 --acceptance-log "
                  "traces/specbench_eagle_vicuna7b_accept.jsonl --quiet --out " +
                  (dir / "out").string(),
              dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto s = read_json(dir / "out" / "summary.json");
  // Every question runs exactly its recorded steps at full depth: τ is the file's
  // 91,342 tokens / 25,525 steps.
  CHECK(s["request_steps"] == 25525);
  CHECK(s["tau_mean"].get<double>() == Approx(91342.0 / 25525.0).epsilon(1e-12));
  REQUIRE(s["acceptance_notes"].size() == 1);
  CHECK_THAT(s["acceptance_notes"][0].get<std::string>(), Catch::Contains("Spec-Bench replay"));
  fs::remove_all(dir);
}

TEST_CASE("bad acceptance input exits 2 with path:line and writes nothing") {
  const auto dir = scratch_dir("acceptance_bad");
  const std::string base =
      "run --trace traces/azure_conv_2023.csv --max-requests 20 "
      "--profile profiles/analytic/h100-sxm/qwen3-8b.json --quiet";
  const auto expect = [&](const std::string& args, const std::string& message) {
    const auto out = dir / "out";
    const auto result = run_cli(base + " " + args + " --out " + out.string(), dir);
    INFO(args << "\n" << result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains(message));
    CHECK_FALSE(fs::exists(out));
  };
  const std::string header =
      "# sparksim acceptance log v1: gamma=7 drafter=dspark-7 target=qwen3-8b seed=1 "
      "acceptance=calibrated\nrequest_id,decode_step,domain,generated,verified,first_rejected,"
      "c1,c2,c3,c4,c5,c6,c7\n";
  const auto bad_p =
      write_input(dir, "bad_p.csv", header + "0,0,chat,1,3,2,0.9,0.8,1.7,0.6,0.5,0.4,0.3\n");
  expect("--acceptance-log " + bad_p, bad_p + ":3: c3 is 1.7; must be a probability in [0, 1]");
  const auto malformed = write_input(dir, "malformed.csv", header + "0,0,chat,1\n");
  expect("--acceptance-log " + malformed, malformed + ":3: has no verified column");
  const auto good =
      write_input(dir, "good.csv", header + "0,0,chat,1,3,2,0.9,0.8,0.7,0.6,0.5,0.4,0.3\n");
  expect("--drafter dspark-5 --acceptance-log " + good,
         good + ":1: the log was written with gamma=7 but the drafter dspark-5 has γ = 5");
  expect("--drafter dspark-20", "block sizes 1..15");
  expect("--acceptance bernoulli --acceptance-log " + bad_p, "cannot be combined");
  const auto curves = write_input(dir, "curves.json", R"({
  "gamma": 7,
  "domains": {"math": [0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9],
              "chat": [0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]}
})");
  expect("--acceptance calibrated:curves=" + curves, curves + ":3: has no curve for domain 'code'");
  const auto sts = write_input(dir, "sts.json", R"({
  "format": "sparksim-sts",
  "version": 1,
  "gamma": 5,
  "temperatures": [1, 1, 1, 1, 1]
})");
  expect("--acceptance calibrated:sts=" + sts, sts + ":4: temperatures were fitted for γ = 5");
  expect("--acceptance calibrated:auc=0.3", "auc=0.3 is out of range");
  // The log being written is removed when the run fails.
  expect("--acceptance calibrated:curves=" + curves + " --write-acceptance-log " +
             (dir / "never.csv").string(),
         "no curve for domain");
  CHECK_FALSE(fs::exists(dir / "never.csv"));
  const auto calibrate = run_cli("calibrate confidence --acceptance-log " + bad_p + " --out " +
                                     (dir / "sts_out.json").string(),
                                 dir);
  CHECK(calibrate.exit_code == 2);
  CHECK_THAT(calibrate.output, Catch::Contains(bad_p + ":3:"));
  CHECK_FALSE(fs::exists(dir / "sts_out.json"));
  fs::remove_all(dir);
}
