// The band over DeepSeek-V4 acceptance scenarios, through the real binary. Oracle: separate runs
// with the scenario pinned (`calibrated:scenario=NAME`, which never computes a band): the band's
// figures under each scenario, and its min and max, are those runs' figures; the default's
// columns and files are the pinned default run's, byte for byte. A target with published
// acceptance gets no band, and `scenario=` stays refused there.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "common/csv_table.hpp"
#include "sim/acceptance/acceptance_scenarios.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// The bundled V4-Flash comparison shortened to 30 s, under `acceptance` ("" = the config's own).
void write_sweep(const fs::path& path, const std::string& acceptance) {
  auto sweep =
      read_json(fs::path(SPARKSIM_SOURCE_DIR) / "experiments/configs/v4_flash_dspark_vs_mtp1.json");
  std::string w = sweep["workload"]["synthetic"];
  w.replace(w.find("duration_s=300"), 14, "duration_s=30");
  sweep["workload"]["synthetic"] = w;
  if (!acceptance.empty()) sweep["acceptance"] = acceptance;
  write_text(path, sweep.dump(2));
}

// One measured-db topology and the telemetry fit, three loads, one seed.
void write_topologies(const fs::path& path, const fs::path& sweep) {
  write_text(path, R"({
  "schema": "sparksim.v4-topologies/1",
  "title": "band test",
  "sweep": ")" + sweep.string() +
                       R"(",
  "target": "deepseek-v4-flash",
  "gpus": ["h200"],
  "topologies": ["dep8"],
  "two_batch_overlap": [false],
  "routing": ["balanced"],
  "extra_profiles": ["profiles/telemetry/deepseek-v4-flash.json"],
  "loads": [4, 16, 45],
  "seeds": [1]
}
)");
}

CsvTable csv(const fs::path& path) {
  return CsvTable::parse(read_file(path), path.string());
}

// The first `n` cells of every line (header included): the columns a file had before the band.
std::vector<std::string> leading_cells(const std::string& text, std::size_t n) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    std::size_t cut = 0;
    for (std::size_t k = 0; k < n && cut != std::string::npos; ++k) {
      cut = line.find(',', k == 0 ? 0 : cut + 1);
    }
    lines.push_back(line.substr(0, cut));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return lines;
}

// min and max over the numeric cells of `values` ("" when none is a number).
std::pair<std::string, std::string> numeric_range(const std::vector<std::string>& values,
                                                  int digits) {
  std::vector<double> v;
  for (const auto& s : values) {
    if (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) != 0)) {
      v.push_back(std::stod(s));
    }
  }
  if (v.empty()) return {"", ""};
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  char a[32], b[32];
  std::snprintf(a, sizeof a, "%.*f", digits, *lo);
  std::snprintf(b, sizeof b, "%.*f", digits, *hi);
  return {a, b};
}

}  // namespace

TEST_CASE("v4-topologies: the band over acceptance scenarios is each scenario's own run",
          "[cli][moe]") {
  const auto dir = scratch_dir("scenario_band_topologies");
  write_sweep(dir / "sweep.json", "");
  write_topologies(dir / "topo.json", dir / "sweep.json");
  const CliResult band =
      run_cli("v4-topologies --jobs 2 --config '" + (dir / "topo.json").string() + "' --out '" +
                  (dir / "band").string() + "'",
              dir);
  INFO(band.output);
  REQUIRE(band.exit_code == 0);
  CHECK_THAT(band.output,
             Catch::Contains("band over the " + std::to_string(acceptance_scenarios().size()) +
                             " acceptance scenarios"));
  CHECK_THAT(band.output, Catch::Contains("under " + std::string(kDefaultV4Scenario) +
                                          " (default): throughput "));

  // The oracle: the same comparison with each scenario pinned.
  std::vector<std::string> names;
  for (const auto& s : acceptance_scenarios()) {
    const std::string name(s.name);
    names.push_back(name);
    write_sweep(dir / ("sweep_" + name + ".json"), "calibrated:scenario=" + name);
    write_topologies(dir / ("topo_" + name + ".json"), dir / ("sweep_" + name + ".json"));
    const CliResult pinned = run_cli("v4-topologies --jobs 2 --quiet --config '" +
                                         (dir / ("topo_" + name + ".json")).string() + "' --out '" +
                                         (dir / name).string() + "'",
                                     dir);
    INFO(pinned.output);
    REQUIRE(pinned.exit_code == 0);
    CHECK_THAT(
        read_file(dir / name / "summary.txt"),
        Catch::Contains("no band over acceptance scenarios: the acceptance pins scenario=" + name));
    CHECK_FALSE(fs::exists(dir / name / "scenarios"));
    // Under a scenario the band run has exactly the pinned run's sweeps, tiers and budget.
    const fs::path own = name == kDefaultV4Scenario ? dir / "band" : dir / "band/scenarios" / name;
    for (const char* entry : {"h200-dep8-balanced", "deepseek-v4-flash"}) {
      CHECK(read_file(own / entry / "points.csv") == read_file(dir / name / entry / "points.csv"));
    }
    CHECK(read_file(own / "budget.csv") == read_file(dir / name / "budget.csv"));
    CHECK(leading_cells(read_file(own / "topologies.csv"), 16) ==
          leading_cells(read_file(dir / name / "topologies.csv"), 16));
  }
  REQUIRE(names.front() == kDefaultV4Scenario);
  // The default's summary columns are the pinned default run's.
  CHECK(leading_cells(read_file(dir / "band/summary.csv"), 15) ==
        leading_cells(read_file(dir / names.front() / "summary.csv"), 15));

  // summary.csv: each row's band is the min and max over the pinned runs' medians.
  const CsvTable summary = csv(dir / "band/summary.csv");
  std::map<std::string, CsvTable> pinned_summary;
  for (const auto& n : names) pinned_summary.emplace(n, csv(dir / n / "summary.csv"));
  std::string joined;
  for (const auto& n : names) joined += (joined.empty() ? "" : ";") + n;
  bool some_band_is_wide = false;
  for (std::size_t row = 0; row < summary.rows(); ++row) {
    CHECK(summary.cell(row, summary.column("acceptance_scenario")) == kDefaultV4Scenario);
    CHECK(summary.cell(row, summary.column("scenario_band")) == joined);
    for (const std::string stat : {"throughput_ratio_median", "speed_ratio_at_matched_median"}) {
      std::vector<std::string> values;
      for (const auto& n : names) {
        const CsvTable& p = pinned_summary.at(n);
        REQUIRE(p.cell(row, p.column("tier")) == summary.cell(row, summary.column("tier")));
        values.push_back(p.cell(row, p.column(stat)));
      }
      const auto [lo, hi] = numeric_range(values, 3);
      CHECK(summary.cell(row, summary.column(stat + "_scenario_min")) == lo);
      CHECK(summary.cell(row, summary.column(stat + "_scenario_max")) == hi);
      if (!lo.empty() && lo != hi) some_band_is_wide = true;
    }
  }
  CHECK(some_band_is_wide);  // the scenarios disagree somewhere, so the band says something

  // scenarios.csv: every scenario's rows, after its three leading cells, are that pinned run's
  // summary rows, in order.
  std::map<std::string, std::vector<std::string>> rows_of;
  const auto lines = leading_cells(read_file(dir / "band/scenarios.csv"), 18);
  for (std::size_t k = 1; k < lines.size(); ++k) {
    const std::string& line = lines[k];
    const std::size_t first = line.find(',');
    const std::size_t third = line.find(',', line.find(',', first + 1) + 1);
    const std::string name = line.substr(0, first);
    CHECK(line.substr(first + 1, 3) == (name == names.front() ? "yes" : "no,"));
    rows_of[name].push_back(line.substr(third + 1));
  }
  for (const auto& n : names) {
    auto pinned = leading_cells(read_file(dir / n / "summary.csv"), 15);
    pinned.erase(pinned.begin());  // the header
    CHECK(rows_of[n] == pinned);
  }

  // topologies.csv: per topology, the band of the best throughput and the scenarios missing it.
  const CsvTable topo = csv(dir / "band/topologies.csv");
  std::map<std::string, CsvTable> pinned_topo;
  for (const auto& n : names) pinned_topo.emplace(n, csv(dir / n / "topologies.csv"));
  for (std::size_t row = 0; row < topo.rows(); ++row) {
    std::vector<std::string> best;
    int infeasible = 0;
    for (const auto& n : names) {
      const CsvTable& p = pinned_topo.at(n);
      best.push_back(p.cell(row, p.column("best_tok_s_per_gpu")));
      if (best.back() == "infeasible") ++infeasible;
    }
    const auto [lo, hi] = numeric_range(best, 1);
    CHECK(topo.cell(row, topo.column("best_tok_s_per_gpu_scenario_min")) == lo);
    CHECK(topo.cell(row, topo.column("best_tok_s_per_gpu_scenario_max")) == hi);
    CHECK(topo.integer(row, topo.column("scenarios_infeasible")) == infeasible);
  }
  fs::remove_all(dir);
}

TEST_CASE("plan on a V4 target: the scenario band equals plain plans under each scenario",
          "[cli][moe]") {
  const auto dir = scratch_dir("scenario_band_plan");
  const std::string plan =
      "plan --profile profiles/telemetry/deepseek-v4-flash.json --jobs 2 --max-replicas 16 "
      "--synthetic rate=40,prompt=fixed:16,output=lognormal:300:0.5,domain=chat,duration_s=10 "
      "--slo \"tok_s_per_user_p50>=110\" --policies mtp1+static:k=1 dspark-5+async-topk ";
  // The default plan names its scenario and prints the options that give the band.
  const CliResult plain = run_cli(plan + "--out '" + (dir / "plain").string() + "'", dir);
  INFO(plain.output);
  REQUIRE(plain.exit_code == 0);
  const std::string hint = "for the band over scenarios add ";
  const std::size_t at = plain.output.find(hint);
  REQUIRE(at != std::string::npos);
  CHECK_THAT(plain.output,
             Catch::Contains("scenario " + std::string(kDefaultV4Scenario) + " (the default"));
  const std::size_t from = at + hint.size();
  const std::string band_options =
      plain.output.substr(from, plain.output.find(" (one search", from) - from);

  // Run exactly what it suggests.
  const CliResult band =
      run_cli(plan + band_options + " --out '" + (dir / "band").string() + "'", dir);
  INFO(band.output);
  REQUIRE(band.exit_code == 0);
  const CsvTable samples = csv(dir / "band/uncertainty.csv");
  REQUIRE(samples.rows() == 2 * acceptance_scenarios().size());

  bool some_differs = false;
  std::map<std::string, std::int64_t> dspark_needs;
  for (const auto& s : acceptance_scenarios()) {
    const std::string name(s.name);
    const auto out = dir / name;
    const CliResult pinned = run_cli(
        plan + "--acceptance calibrated:scenario=" + name + " --out '" + out.string() + "'", dir);
    INFO(pinned.output);
    REQUIRE(pinned.exit_code == 0);
    const CsvTable p = csv(out / "plan.csv");
    int matched = 0;
    for (std::size_t row = 0; row < samples.rows(); ++row) {
      if (samples.cell(row, samples.column("acceptance_scenario")) != name) continue;
      for (std::size_t q = 0; q < p.rows(); ++q) {
        if (p.cell(q, p.column("drafter")) != samples.cell(row, samples.column("drafter"))) {
          continue;
        }
        CHECK(samples.integer(row, samples.column("replicas")) ==
              p.integer(q, p.column("replicas")));
        ++matched;
        if (p.cell(q, p.column("drafter")) == "dspark-5") {
          dspark_needs[name] = p.integer(q, p.column("replicas"));
        }
      }
    }
    CHECK(matched == 2);  // one sample per scenario, two policies
    if (name == kDefaultV4Scenario) {
      // The default plan is the pinned default's.
      CHECK(read_file(out / "plan.csv") == read_file(dir / "plain/plan.csv"));
      CHECK(read_file(out / "search.csv") == read_file(dir / "plain/search.csv"));
    }
  }
  // The stdout line per plan names each scenario's need, the default marked.
  REQUIRE(dspark_needs.size() == acceptance_scenarios().size());
  std::string by = "  by scenario:";
  for (const auto& s : acceptance_scenarios()) {
    const std::string name(s.name);
    const auto n = dspark_needs.at(name);
    by += std::string(name == kDefaultV4Scenario ? "" : ";") + " " + name +
          (name == kDefaultV4Scenario ? " (default)" : "") + " " + std::to_string(n) +
          (n == 1 ? " replica (" : " replicas (") + std::to_string(n) +
          (n == 1 ? " GPU)" : " GPUs)");
    some_differs = some_differs || n != dspark_needs.at(std::string(kDefaultV4Scenario));
  }
  CHECK_THAT(band.output, Catch::Contains(by));
  CHECK(some_differs);  // the priors disagree on this SLO, so the band is not a single value
  fs::remove_all(dir);
}

TEST_CASE("plan on a target with published acceptance: no band, and scenario= refused",
          "[cli][moe]") {
  const auto dir = scratch_dir("published_acceptance_plan");
  const std::string plan =
      "plan --profile profiles/analytic/h100-sxm/qwen3-8b.json --jobs 2 --max-replicas 4 "
      "--synthetic rate=4,prompt=fixed:64,output=fixed:64,domain=chat,duration_s=5 "
      "--slo \"tok_s_per_user_p50>=10\" --policies dspark-7+async-topk ";
  const CliResult plain = run_cli(plan + "--out '" + (dir / "plain").string() + "'", dir);
  INFO(plain.output);
  REQUIRE(plain.exit_code == 0);
  CHECK_THAT(plain.output, !Catch::Contains("acceptance DSpark"));
  CHECK_THAT(plain.output, !Catch::Contains("band over scenarios"));
  const std::string scenario(kDefaultV4Scenario);
  const CliResult refused = run_cli(plan + "--acceptance calibrated:scenario=" + scenario +
                                        " --out '" + (dir / "refused").string() + "'",
                                    dir);
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Catch::Contains("--acceptance: scenario= applies to targets"));
  CHECK_FALSE(fs::exists(dir / "refused"));
  fs::remove_all(dir);
}
