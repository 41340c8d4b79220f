// `sparksim plan` end to end: the minimum replica count is one that was simulated and met the
// SLO while one fewer was simulated and missed it; unmeetable SLOs are said so; bad input is
// reported all at once before anything runs.
#include <algorithm>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "common/csv_table.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {
// 400 code requests (long prompts) squeezed into about 4 seconds: far more than one replica.
const std::string kWorkload =
    "--trace traces/azure_code_2023.csv --max-requests 400 --rate-scale 40 "
    "--profile profiles/analytic/h100-sxm/qwen3-8b.json --jobs 2 ";
}  // namespace

TEST_CASE("plan finds the fewest replicas meeting the SLO, per policy") {
  const auto dir = scratch_dir("plan_cli");
  const auto r = run_cli("plan " + kWorkload +
                             "--slo \"ttft_p99_ms<=3000,tok_s_per_user_p50>=60\" "
                             "--policies mtp1+static:k=1 static:k=4 --drafter dspark-7 --out " +
                             (dir / "plan").string(),
                         dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("ANALYTIC"));
  CHECK_THAT(r.output, Catch::Contains("mtp1 + static:k=1: "));
  CHECK_THAT(r.output, Catch::Contains("dspark-7 + static:k=4: "));

  const CsvTable plan = CsvTable::parse(read_file(dir / "plan" / "plan.csv"), "plan.csv");
  const CsvTable search = CsvTable::parse(read_file(dir / "plan" / "search.csv"), "search.csv");
  REQUIRE(plan.rows() == 2);
  for (std::size_t p = 0; p < plan.rows(); ++p) {
    INFO(plan.raw_row(p));
    REQUIRE(plan.cell(p, plan.column("status")) == "met");
    const auto n = plan.integer(p, plan.column("replicas"));
    CHECK(n > 1);  // the load is far beyond one replica
    CHECK(plan.integer(p, plan.column("gpus")) == n);
    CHECK(plan.number(p, plan.column("ttft_p99_ms")) <= 3000);
    CHECK(plan.number(p, plan.column("tok_s_per_user_p50")) >= 60);
    CHECK(plan.integer(p, plan.column("requests_completed")) == 400);
    // The answer and the count below it were both simulated, with opposite verdicts.
    bool saw_n = false, saw_below = false;
    for (std::size_t s = 0; s < search.rows(); ++s) {
      if (search.cell(s, search.column("policy")) != plan.cell(p, plan.column("policy"))) continue;
      const auto k = search.integer(s, search.column("replicas"));
      const auto meets = search.integer(s, search.column("meets"));
      if (k == n) saw_n = meets == 1;
      if (k == n - 1) {
        saw_below = meets == 0;
        CHECK_FALSE(search.cell(s, search.column("reason")).empty());
      }
    }
    CHECK(saw_n);
    CHECK(saw_below);
  }
  fs::remove_all(dir);
}

TEST_CASE("plan's config.json records each policy's run exactly as sparksim run records it") {
  // Oracle: `sparksim run` with the same workload, profile and policy writes its own config.json;
  // the plan's "runs" entry for that policy must be that document (one writer for both).
  const auto dir = scratch_dir("plan_config_runs");
  const std::string workload =
      "--trace traces/azure_code_2023.csv --max-requests 40 --rate-scale 4 "
      "--profile profiles/analytic/h100-sxm/qwen3-8b.json --seed 3 ";
  const auto plan =
      run_cli("plan " + workload + "--jobs 1 --slo \"ttft_p99_ms<=100000\" " +
                  "--policies mtp1+static:k=1 dspark-7+async-topk --out " + (dir / "plan").string(),
              dir);
  INFO(plan.output);
  REQUIRE(plan.exit_code == 0);
  const auto runs = read_json(dir / "plan" / "config.json")["runs"];
  REQUIRE(runs.size() == 2);
  const char* policies[][2] = {{"mtp1", "static:k=1"}, {"dspark-7", "async-topk"}};
  for (std::size_t i = 0; i < 2; ++i) {
    const auto out = dir / ("run" + std::to_string(i));
    const auto run = run_cli("run " + workload + "--drafter " + policies[i][0] + " --policy " +
                                 policies[i][1] + " --out " + out.string(),
                             dir);
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    CHECK(runs[i] == read_json(out / "config.json"));
  }
  fs::remove_all(dir);
}

TEST_CASE("an SLO no replica count meets is reported as such") {
  const auto dir = scratch_dir("plan_unmet");
  const auto r = run_cli("plan " + kWorkload +
                             "--slo \"tok_s_per_user_p50>=100000\" --policies mtp1+static:k=1 "
                             "--max-replicas 3 --out " +
                             (dir / "plan").string(),
                         dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("cannot meet the SLO with up to 3 replicas"));
  const CsvTable plan = CsvTable::parse(read_file(dir / "plan" / "plan.csv"), "plan.csv");
  CHECK(plan.cell(0, plan.column("status")) == "unmet_within_max_replicas");
  CHECK(plan.cell(0, plan.column("replicas")).empty());
  fs::remove_all(dir);
}

TEST_CASE("plan reports every bad input before simulating") {
  const auto dir = scratch_dir("plan_bad");
  const auto r = run_cli("plan " + kWorkload +
                             "--slo \"ttft_p99_ms<=2000,speed>=3\" --policies mtp1+fastest "
                             "medusa-2+static:k=1 --router random --out " +
                             (dir / "plan").string(),
                         dir);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown metric 'speed'"));
  CHECK_THAT(r.output, Catch::Contains("--policies 'mtp1+fastest': --policy: unknown policy"));
  CHECK_THAT(r.output, Catch::Contains("--policies 'medusa-2+static:k=1': --drafter: unknown"));
  CHECK_THAT(r.output, Catch::Contains("--router: unknown router 'random'; valid: round-robin"));
  CHECK_FALSE(fs::exists(dir / "plan"));
  fs::remove_all(dir);
}

TEST_CASE("plan --uncertain: each sample needs what a plain plan at that sample's inputs needs") {
  // Oracle: a plain `sparksim plan --acceptance calibrated:shift=V` at each sampled V (printed
  // exactly: shortest round-trip form). The design is a Latin hypercube: 3 samples of [-1.5, 1.5]
  // fall one in each third. The meet probabilities are counted here from the plain plans.
  const auto dir = scratch_dir("plan_uncertain");
  const std::string policy = "--policies dspark-7+static:k=4 ";
  const std::string slo = "--slo \"ttft_p99_ms<=3000,tok_s_per_user_p50>=60\" ";
  const auto r = run_cli("plan " + kWorkload + slo + policy +
                             "--uncertain acceptance_shift=-1.5:1.5 --uncertainty-samples 3 "
                             "--out " +
                             (dir / "plan").string(),
                         dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("uncertain (3 samples): "));
  const CsvTable samples =
      CsvTable::parse(read_file(dir / "plan" / "uncertainty.csv"), "uncertainty.csv");
  REQUIRE(samples.rows() == 3);
  std::vector<bool> third_seen(3, false);
  std::vector<std::int64_t> needs;
  for (std::size_t s = 0; s < samples.rows(); ++s) {
    const std::string shift = samples.cell(s, samples.column("acceptance_shift"));
    const double v = std::stod(shift);
    REQUIRE(v >= -1.5);
    REQUIRE(v < 1.5);
    third_seen[static_cast<std::size_t>((v + 1.5) / 1.0)] = true;
    const auto plain_dir = dir / ("plain" + std::to_string(s));
    const auto plain =
        run_cli("plan " + kWorkload + slo + policy + "--acceptance calibrated:shift=" + shift +
                    " --out " + plain_dir.string(),
                dir);
    INFO(plain.output);
    REQUIRE(plain.exit_code == 0);
    const CsvTable plan = CsvTable::parse(read_file(plain_dir / "plan.csv"), "plan.csv");
    REQUIRE(plan.cell(0, plan.column("status")) == "met");
    CHECK(samples.integer(s, samples.column("replicas")) ==
          plan.integer(0, plan.column("replicas")));
    needs.push_back(plan.integer(0, plan.column("replicas")));
  }
  CHECK(third_seen == std::vector<bool>{true, true, true});
  const CsvTable meets =
      CsvTable::parse(read_file(dir / "plan" / "meet_probability.csv"), "meet_probability.csv");
  const auto [lo, hi] = std::minmax_element(needs.begin(), needs.end());
  REQUIRE(meets.rows() == static_cast<std::size_t>(*hi - *lo + 1));
  for (std::size_t row = 0; row < meets.rows(); ++row) {
    const auto n = meets.integer(row, meets.column("replicas"));
    const auto expected = std::count_if(needs.begin(), needs.end(), [&](auto k) { return k <= n; });
    CHECK(meets.integer(row, meets.column("samples_meeting")) == expected);
    CHECK(meets.number(row, meets.column("p_meets")) ==
          Approx(static_cast<double>(expected) / 3.0).margin(1e-4));
  }
  const auto config = read_json(dir / "plan" / "config.json");
  CHECK(config["uncertainty"]["samples"] == 3);
  fs::remove_all(dir);
}

TEST_CASE("plan --uncertain: bad declarations stop before simulating, nothing written") {
  const auto dir = scratch_dir("plan_uncertain_bad");
  const std::string base = "plan " + kWorkload +
                           "--slo \"ttft_p99_ms<=3000\" --policies dspark-7+static:k=4 --out " +
                           (dir / "plan").string() + " ";
  const std::pair<const char*, const char*> cases[] = {
      {"--uncertain speed=1:2", "expected NAME=LOW:HIGH or NAME=A|B"},
      {"--uncertain acceptance_shift=1:-1", "LOW must be below HIGH"},
      {"--uncertain acceptance_shift=0:x", "'x' is not a number"},
      {"--uncertain 'sps_belief=capture|psychic'", "'psychic' is not a value of sps_belief"},
      {"--uncertain acceptance_shift=-1:1 --uncertainty-samples 1",
       "--uncertainty-samples must be in [2, 1000]"},
      {"--uncertain acceptance_shift=-1:1 --acceptance bernoulli:p=0.8",
       "varies the calibrated acceptance model"},
      {"--uncertain routing_imbalance=1:2",
       "routing_imbalance at 1: routing_imbalance: the profile's target 'qwen3-8b' is dense"},
      {"--uncertain routing_imbalance=0.5:2", "routing_imbalance must lie in [1, 8]"},
      {"--uncertain arrival_cv=0.5:20", "arrival_cv must lie in [0.05, 10]"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = run_cli(base + args, dir);
    INFO(args);
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(message));
    CHECK_FALSE(fs::exists(dir / "plan"));
  }
  fs::remove_all(dir);
}
