// `sparksim sensitivity` with a capacity plan (`sparksim.plan/1`) as its experiment. Oracle: a
// plain `sparksim plan` run with the input given as that command's own option (--acceptance
// calibrated:shift=V, --output-length-scale V) at every value the study reports: the GPUs needed
// per policy at each input's low and high, the tornado's largest swing, and the break-even's
// bracket (the conclusion "DSpark needs fewer GPUs than MTP-1" differs at its two ends); a second
// run gives the same bytes. A bad plan file or input stops with `path:line`, exit 2, nothing
// written.
#include <cmath>
#include <map>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "common/csv_table.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {

// About 500 code requests in 5 s against a per-user speed bound: 2-3 replicas of one GPU.
const char* kSynthetic =
    "rate=100,cv=1.0,prompt=lognormal:300:0.5,output=lognormal:200:0.5,domain=code,duration_s=5";
const char* kProfile = "profiles/analytic/h100-sxm/qwen3-8b.json";

std::string plan_config(const std::string& line7, const std::string& line8) {
  return std::string(R"({
  "schema": "sparksim.plan/1",
  "title": "tiny plan",
  "synthetic": ")") +
         kSynthetic + R"(",
  "profile": ")" +
         kProfile + R"(",
  "slo": "tok_s_per_user_p50>=150",
  )" + line7 +
         ",\n  " + line8 + "\n}\n";
}

const char* kPolicies = R"("policies": ["mtp1+static:k=1", "dspark-7+greedy"])";

std::string study(const fs::path& plan, const std::string& line6, const std::string& extra = "") {
  return R"({
  "schema": "sparksim.sensitivity/1",
  "title": "tiny plan study",
  "experiment": ")" +
         plan.string() + R"(",
  "inputs": [
    )" + line6 +
         R"(,
    {"input": "output_length_x", "low": 0.5, "high": 2}
  ],)" + extra +
         R"(
  "break_even": true
}
)";
}

// GPUs a plain `sparksim plan` needs per policy (mtp1, dspark) with `option` added; NaN unmet.
std::vector<double> plain_plan_gpus(const std::string& option, const fs::path& dir) {
  static int n = 0;
  const auto out = dir / ("plain" + std::to_string(++n));
  const auto r = run_cli(std::string("plan --synthetic ") + kSynthetic + " --profile " + kProfile +
                             " --slo \"tok_s_per_user_p50>=150\" --policies mtp1+static:k=1 "
                             "dspark-7+greedy --max-replicas 32 --jobs 2 " +
                             option + " --out " + out.string(),
                         dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const CsvTable plan = CsvTable::parse(read_file(out / "plan.csv"), "plan.csv");
  REQUIRE(plan.rows() == 2);
  std::vector<double> gpus;
  for (std::size_t p = 0; p < 2; ++p) {
    const bool met = plan.cell(p, plan.column("status")) == "met";
    gpus.push_back(met ? plan.number(p, plan.column("gpus")) : std::nan(""));
  }
  return gpus;
}

double cell_or_nan(const CsvTable& t, std::size_t row, const char* column) {
  const std::string& text = t.cell(row, t.column(column));
  return text.empty() ? std::nan("") : std::stod(text);
}

bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == Approx(b);
}

}  // namespace

TEST_CASE("sensitivity on a plan: GPUs per policy as plain plans give them, tornado, break-even") {
  const auto dir = scratch_dir("sensitivity_plan");
  std::ofstream(dir / "plan.json") << plan_config(kPolicies, R"("max_replicas": 32)");
  std::ofstream(dir / "study.json")
      << study(dir / "plan.json", R"({"input": "acceptance_shift", "low": -1, "high": 1})");
  const auto r = run_cli("sensitivity --jobs 2 --config " + (dir / "study.json").string() +
                             " --out " + (dir / "out").string(),
                         dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string gain = "GPU gain dspark-7+greedy vs mtp1+static:k=1";
  const std::string needs[2] = {"GPUs needed, mtp1+static:k=1", "GPUs needed, dspark-7+greedy"};

  // Every low and high value, each output, against a plain plan with that input as an option.
  const std::map<std::string, std::string> option = {
      {"acceptance_shift", "--acceptance calibrated:shift="},
      {"output_length_x", "--output-length-scale "}};
  const CsvTable csv = CsvTable::parse(read_file(dir / "out" / "sensitivity.csv"), "s.csv");
  REQUIRE(csv.rows() == 6);             // 3 outputs x 2 inputs
  std::map<std::string, double> swing;  // output + input -> |high - low| from the plain plans
  for (const std::string& input :
       {std::string("acceptance_shift"), std::string("output_length_x")}) {
    std::vector<double> plain[2];
    for (int level = 0; level < 2; ++level) {
      const char* column = level == 0 ? "low" : "high";
      std::string value;
      for (std::size_t row = 0; row < csv.rows(); ++row) {
        if (csv.cell(row, csv.column("input")) == input) value = csv.cell(row, csv.column(column));
      }
      plain[level] = plain_plan_gpus(option.at(input) + value, dir);
    }
    for (std::size_t row = 0; row < csv.rows(); ++row) {
      if (csv.cell(row, csv.column("input")) != input) continue;
      const std::string output = csv.cell(row, csv.column("output"));
      INFO(output << " / " << input);
      double expect[2];
      for (int level = 0; level < 2; ++level) {
        expect[level] = output == gain ? plain[level][0] / plain[level][1]
                                       : plain[level][output == needs[0] ? 0 : 1];
      }
      CHECK(same(cell_or_nan(csv, row, "output_at_low"), expect[0]));
      CHECK(same(cell_or_nan(csv, row, "output_at_high"), expect[1]));
      swing[output + "|" + input] = std::fabs(expect[1] - expect[0]);
    }
  }
  // The tornado's top bar per output: the input with the larger swing (where they differ).
  for (const std::string& output : {gain, needs[0], needs[1]}) {
    const double a = swing[output + "|acceptance_shift"], b = swing[output + "|output_length_x"];
    if (std::isnan(a) || std::isnan(b) || a == b) continue;
    CHECK_THAT(r.output, Catch::Contains(output + ": largest swing from " +
                                         (a > b ? "acceptance_shift" : "output_length_x")));
  }
  // At shift -1 DSpark ties MTP-1 (3 and 3 GPUs), at +1 it needs fewer: a flip inside the range.
  // Its bracket's two ends, as plain plans, give the two conclusions.
  const CsvTable be = CsvTable::parse(read_file(dir / "out" / "break_even.csv"), "be.csv");
  bool found = false;
  for (std::size_t row = 0; row < be.rows(); ++row) {
    if (be.cell(row, be.column("output")) != gain ||
        be.cell(row, be.column("input")) != "acceptance_shift") {
      continue;
    }
    found = true;
    CHECK(be.integer(row, be.column("steps")) <= 10);
    const auto lo = plain_plan_gpus(
        option.at("acceptance_shift") + be.cell(row, be.column("bracket_low")), dir);
    const auto hi = plain_plan_gpus(
        option.at("acceptance_shift") + be.cell(row, be.column("bracket_high")), dir);
    CHECK((lo[0] > lo[1]) != (hi[0] > hi[1]));  // DSpark needs fewer GPUs at exactly one end
  }
  CHECK(found);
  // Same config, same bytes.
  const auto again =
      run_cli("sensitivity --quiet --jobs 2 --config " + (dir / "study.json").string() + " --out " +
                  (dir / "again").string(),
              dir);
  REQUIRE(again.exit_code == 0);
  for (const char* file : {"sensitivity.csv", "break_even.csv", "report.html", "study.json"}) {
    INFO(file);
    CHECK(read_file(dir / "out" / file) == read_file(dir / "again" / file));
  }
  fs::remove_all(dir);
}

TEST_CASE("sensitivity on a plan: a bad plan file or input stops with path:line, exit 2") {
  const auto dir = scratch_dir("sensitivity_plan_bad");
  const auto check_refused = [&](const std::string& plan, const std::string& input,
                                 const std::vector<std::string>& messages,
                                 const std::string& extra = "") {
    std::ofstream(dir / "plan.json") << plan;
    std::ofstream(dir / "study.json") << study(dir / "plan.json", input, extra);
    const auto r = run_cli("sensitivity --config " + (dir / "study.json").string() + " --out " +
                               (dir / "out").string(),
                           dir);
    INFO(r.output);
    CHECK(r.exit_code == 2);
    for (const auto& message : messages) CHECK_THAT(r.output, Catch::Contains(message));
    CHECK_FALSE(fs::exists(dir / "out"));
  };
  const std::string shift = R"({"input": "acceptance_shift", "low": -1, "high": 1})";
  const std::string good = plan_config(kPolicies, R"("max_replicas": 32)");
  check_refused(plan_config(kPolicies, R"("max_replica": 32)"), shift,
                {"plan.json:8: unknown key 'max_replica'"});
  check_refused(plan_config(kPolicies, R"("max_replicas": 0)"), shift,
                {"plan.json:8: max_replicas must be in [1, 100000]"});
  check_refused(plan_config(R"("policies": ["mtp1+static:k=1", "dspark-7+fastest"])",
                            R"("max_replicas": 32)"),
                shift, {"plan.json:7: policies 'dspark-7+fastest': "});
  // Both reported at once, and the study names the experiment's line.
  check_refused(plan_config(R"("policies": "mtp1+static:k=1")", R"("max_replicas": 8.5)"), shift,
                {"study.json:4: the experiment does not load",
                 "plan.json:7: policies is \"mtp1+static:k=1\"; must be an array",
                 "plan.json:8: max_replicas must be a whole number"});
  // A V4 acceptance scenario on a Qwen3 target: refused at the input's line, as plan refuses it.
  check_refused(
      good,
      R"({"input": "acceptance_scenario", "low": "v4-vllm-note", "high": "dspark-table1-qwen3"})",
      {"study.json:6: acceptance_scenario at v4-vllm-note: "});
  // Routing imbalance needs a MoE target.
  check_refused(good, R"({"input": "routing_imbalance", "low": 1, "high": 2})",
                {"study.json:6: routing_imbalance at 1: "});
  // Reductions are a sweep's; a plan file is already the study's size.
  check_refused(good, shift, {"study.json:9: experiment_overrides reduce a sweep"},
                R"(
  "experiment_overrides": {"seeds": [1]},)");
  fs::remove_all(dir);
}

TEST_CASE("sensitivity on a plan over V4 topologies: GPUs are the fewest over the topologies") {
  // Oracle: plain `sparksim plan --topologies dep8 dep16` under each acceptance scenario, the
  // fewest GPUs among each policy's topologies that meet the SLO (from its plan.csv).
  const auto dir = scratch_dir("sensitivity_plan_v4");
  const std::string workload = "rate=200,prompt=fixed:512,output=fixed:64,domain=chat,duration_s=3";
  std::ofstream(dir / "plan.json") << R"({
  "schema": "sparksim.plan/1",
  "synthetic": ")" + workload + R"(",
  "target": "deepseek-v4-flash",
  "gpu": "h200",
  "topologies": ["dep8", "dep16"],
  "slo": "tok_s_per_user_p50>=60",
  "policies": ["mtp1+static:k=1", "dspark-5+async-topk"]
}
)";
  const auto write_study = [&](const std::string& second_input) {
    std::ofstream(dir / "study.json") << R"({
  "schema": "sparksim.sensitivity/1",
  "title": "v4 plan",
  "experiment": ")" + (dir / "plan.json").string() +
                                             R"(",
  "inputs": [
    {"input": "acceptance_scenario", "low": "v4-vllm-note", "high": "dspark-table1-qwen3"},
    )" + second_input + R"(
  ]
}
)";
  };
  write_study(R"({"input": "routing_imbalance", "low": 1, "high": 2})");
  const auto r = run_cli("sensitivity --jobs 2 --config " + (dir / "study.json").string() +
                             " --out " + (dir / "out").string(),
                         dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const CsvTable csv = CsvTable::parse(read_file(dir / "out" / "sensitivity.csv"), "s.csv");
  for (const char* level : {"low", "high"}) {
    const std::string scenario =
        std::string(level) == "low" ? "v4-vllm-note" : "dspark-table1-qwen3";
    const auto out = dir / ("plain_" + scenario);
    const auto plain = run_cli("plan --jobs 2 --synthetic " + workload +
                                   " --target deepseek-v4-flash --gpu h200 --topologies dep8 dep16 "
                                   "--slo \"tok_s_per_user_p50>=60\" --policies mtp1+static:k=1 "
                                   "dspark-5+async-topk --acceptance calibrated:scenario=" +
                                   scenario + " --out " + out.string(),
                               dir);
    INFO(plain.output);
    REQUIRE(plain.exit_code == 0);
    const CsvTable plan = CsvTable::parse(read_file(out / "plan.csv"), "plan.csv");
    std::map<std::string, double> fewest;  // policy entry -> GPUs
    for (std::size_t p = 0; p < plan.rows(); ++p) {
      if (plan.cell(p, plan.column("status")) != "met") continue;
      const std::string entry =
          plan.cell(p, plan.column("drafter")) + "+" + plan.cell(p, plan.column("policy"));
      const double gpus = plan.number(p, plan.column("gpus"));
      fewest[entry] = fewest.count(entry) ? std::min(fewest[entry], gpus) : gpus;
    }
    REQUIRE(fewest.size() == 2);
    for (std::size_t row = 0; row < csv.rows(); ++row) {
      if (csv.cell(row, csv.column("input")) != "acceptance_scenario") continue;
      const std::string output = csv.cell(row, csv.column("output"));
      const double value = cell_or_nan(csv, row, (std::string("output_at_") + level).c_str());
      INFO(output << " at " << level);
      if (output.rfind("GPUs needed, ", 0) == 0) {
        CHECK(value == fewest.at(output.substr(13)));
      } else {
        CHECK(value == Approx(fewest.at("mtp1+static:k=1") / fewest.at("dspark-5+async-topk")));
      }
    }
  }
  // A cost input cannot scale a profile each topology composes for itself: refused at its line.
  write_study(R"({"input": "draft_cost_x", "low": 1, "high": 2})");
  const auto bad = run_cli(
      "sensitivity --config " + (dir / "study.json").string() + " --out " + (dir / "bad").string(),
      dir);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("study.json:7: draft_cost_x: not with topologies"));
  CHECK_FALSE(fs::exists(dir / "bad"));
  fs::remove_all(dir);
}
