// `sparksim sensitivity` with a `sparksim v4-topologies` comparison as its experiment. Oracle: the
// v4-topologies command itself, run on the same config, which writes each row's tier gain under
// the default acceptance scenario (topologies.csv) and under the other (scenarios/<name>/): the
// study's gains at nominal and with acceptance_scenario at its high choice are those, to the three
// decimals v4-topologies prints, and an infeasible tier is unmet in both. Unknown rows and
// reductions a topology comparison has no use for stop with `path:line`, exit 2, nothing written.
#include <cmath>
#include <map>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "common/csv_table.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {

// The bundled V4-Flash comparison at 30 s, on H200 dep8 (balanced routing) and the telemetry fit.
void write_experiment(const fs::path& dir) {
  auto sweep =
      read_json(fs::path(SPARKSIM_SOURCE_DIR) / "experiments/configs/v4_flash_dspark_vs_mtp1.json");
  std::string w = sweep["workload"]["synthetic"];
  w.replace(w.find("duration_s=300"), 14, "duration_s=30");
  sweep["workload"]["synthetic"] = w;
  std::ofstream(dir / "sweep.json") << sweep.dump(2);
  std::ofstream(dir / "topo.json") << R"({
  "schema": "sparksim.v4-topologies/1",
  "title": "test",
  "sweep": ")" + (dir / "sweep.json").string() +
                                          R"(",
  "target": "deepseek-v4-flash",
  "gpus": ["h200"],
  "topologies": ["dep8"],
  "two_batch_overlap": [false],
  "routing": ["balanced"],
  "extra_profiles": ["profiles/telemetry/deepseek-v4-flash.json"],
  "loads": [5, 10, 25, 50],
  "seeds": [1]
}
)";
}

std::string study(const fs::path& dir, const std::string& line5) {
  return R"({
  "schema": "sparksim.sensitivity/1",
  "title": "rows",
  "experiment": ")" +
         (dir / "topo.json").string() + R"(",
  )" + line5 +
         R"(,
  "inputs": [
    {"input": "acceptance_scenario", "low": "v4-vllm-note", "high": "dspark-table1-qwen3"},
    {"input": "verify_cost_x", "low": 0.8, "high": 1.25}
  ]
}
)";
}

// v4-topologies' p10 ratio of DSpark-5 to MTP-1 per "row @ tier"; NaN where it prints none.
std::map<std::string, double> topology_gains(const fs::path& csv_path) {
  const CsvTable t = CsvTable::parse(read_file(csv_path), csv_path.string());
  std::map<std::string, double> gains;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (t.cell(r, t.column("metric")) != "p10" ||
        t.cell(r, t.column("system")) != "dspark-5 + async-topk") {
      continue;
    }
    const std::string& ratio = t.cell(r, t.column("throughput_vs_baseline"));
    const bool number = !ratio.empty() && (std::isdigit(static_cast<unsigned char>(ratio[0])) != 0);
    gains[t.cell(r, t.column("entry")) + " @ " + t.cell(r, t.column("tier"))] =
        number ? std::stod(ratio) : std::nan("");
  }
  return gains;
}

}  // namespace

TEST_CASE(
    "sensitivity on v4-topologies rows: each row's gain is v4-topologies' own, per scenario") {
  const auto dir = scratch_dir("sensitivity_topology");
  write_experiment(dir);
  const auto v4 = run_cli("v4-topologies --quiet --jobs 2 --config " +
                              (dir / "topo.json").string() + " --out " + (dir / "v4").string(),
                          dir);
  INFO(v4.output);
  REQUIRE(v4.exit_code == 0);
  std::ofstream(dir / "study.json") << study(dir, R"("experiment_overrides": {"seeds": [1]})");
  const auto r = run_cli("sensitivity --jobs 2 --config " + (dir / "study.json").string() +
                             " --out " + (dir / "out").string(),
                         dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto nominal = topology_gains(dir / "v4" / "topologies.csv");
  const auto qwen_prior =
      topology_gains(dir / "v4" / "scenarios" / "dspark-table1-qwen3" / "topologies.csv");
  REQUIRE(nominal.size() == 4);  // 2 rows x 2 tiers

  const CsvTable csv = CsvTable::parse(read_file(dir / "out" / "sensitivity.csv"), "s.csv");
  int compared = 0, unmet = 0;
  for (std::size_t row = 0; row < csv.rows(); ++row) {
    if (csv.cell(row, csv.column("input")) != "acceptance_scenario") continue;
    // "tier gain dspark-5 + async-topk @ 80 tok/s/user, h200-dep8-balanced" -> "h200-dep8-... @ 80"
    const std::string output = csv.cell(row, csv.column("output"));
    const std::string tier = output.substr(output.find(" @ ") + 3);
    const std::string key =
        output.substr(output.rfind(", ") + 2) + " @ " + tier.substr(0, tier.find(' '));
    INFO(output);
    REQUIRE(nominal.count(key) == 1);
    for (const auto& [column, expected] : {std::pair{"output_at_nominal", nominal.at(key)},
                                           std::pair{"output_at_high", qwen_prior.at(key)}}) {
      const std::string& text = csv.cell(row, csv.column(column));
      if (std::isnan(expected)) {
        CHECK(text.empty());
        ++unmet;
      } else {
        REQUIRE_FALSE(text.empty());
        CHECK(std::stod(text) == Approx(expected).margin(0.0005));
        ++compared;
      }
    }
  }
  CHECK(compared >= 5);  // the reachable gains, not only the unmet ones, were compared
  CHECK(unmet >= 1);
  fs::remove_all(dir);
}

TEST_CASE("sensitivity on v4-topologies rows: an unknown row or reduction stops at its line") {
  const auto dir = scratch_dir("sensitivity_topology_bad");
  write_experiment(dir);
  const auto refused = [&](const std::string& line5, const std::vector<std::string>& messages) {
    std::ofstream(dir / "study.json") << study(dir, line5);
    const auto r = run_cli("sensitivity --config " + (dir / "study.json").string() + " --out " +
                               (dir / "out").string(),
                           dir);
    INFO(r.output);
    CHECK(r.exit_code == 2);
    for (const auto& m : messages) CHECK_THAT(r.output, Catch::Contains(m));
    CHECK_FALSE(fs::exists(dir / "out"));
  };
  refused(R"("experiment_overrides": {"rows": ["h200-dep9-balanced"]})",
          {"study.json:5: the experiment does not load",
           "row 'h200-dep9-balanced' is not one of the experiment's (h200-dep8-balanced, "
           "deepseek-v4-flash)"});
  refused(R"("experiment_overrides": {"max_requests": 10})",
          {"study.json:5: unknown key 'max_requests'"});
  fs::remove_all(dir);
}
