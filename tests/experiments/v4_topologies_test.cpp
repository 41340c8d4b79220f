// `sparksim v4-topologies` through the real binary: bad configs stop before any work with
// `path:line: what`, exit 2 and no output directory; a small sweep whose tiers bracket what any
// system can reach reports the unreachable tier as infeasible (never as a ratio), the reachable
// one as a ratio, and the summary's counts agree with the per-topology table; a topology that
// does not fit is reported refused with its numbers.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/experiments/cli_harness.hpp"

namespace sparksim::testing {
namespace {

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// A topology config; `override_line` replaces its line 6 (the one the bad cases break).
std::string topology_config(const std::string& sweep, const std::string& line6) {
  return "{\n"
         "  \"schema\": \"sparksim.v4-topologies/1\",\n"
         "  \"title\": \"test\",\n"
         "  \"sweep\": \"" +
         sweep +
         "\",\n"
         "  \"target\": \"deepseek-v4-flash\",\n" +
         line6 +
         ",\n"
         "  \"topologies\": [\"dep8\"],\n"
         "  \"two_batch_overlap\": [false],\n"
         "  \"routing\": [\"balanced\"],\n"
         "  \"loads\": [2, 4],\n"
         "  \"seeds\": [1]\n"
         "}\n";
}

TEST_CASE("v4-topologies: bad configs exit 2 at their line and write nothing", "[cli][moe]") {
  const auto dir = scratch_dir("v4_topologies_bad");
  const std::string sweep = "experiments/configs/v4_flash_dspark_vs_mtp1.json";
  struct Case {
    std::string line6, message;
  };
  const Case cases[] = {
      {"  \"gpus\": [\"a100\"]", ":6: gpu \"a100\" has no V4 model"},
      {"  \"gpus\": [\"h200\"], \"routing_typo\": 1", ":6: "},
      {"  \"gpus\": [\"h200\", \"h200\"]", ":6: gpus[1] \"h200\" twice"},
      {"  \"gpus\": []", ":6: gpus is empty"},
  };
  for (const Case& c : cases) {
    const auto config = dir / "bad.json";
    write_text(config, topology_config(sweep, c.line6));
    const CliResult r = run_cli(
        "v4-topologies --config '" + config.string() + "' --out '" + (dir / "out").string() + "'",
        dir);
    INFO(c.line6 << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(config.string() + c.message) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
  }
  // A topology whose EP size does not divide the experts, an unknown routing: their own lines.
  std::string text = topology_config(sweep, "  \"gpus\": [\"h200\"]");
  text.replace(text.find("[\"dep8\"]"), 8, "[\"dep12\"]");
  text.replace(text.find("[\"balanced\"]"), 12, "[\"zipf\"]");
  write_text(dir / "bad2.json", text);
  const CliResult r = run_cli("v4-topologies --config '" + (dir / "bad2.json").string() +
                                  "' --out '" + (dir / "out").string() + "'",
                              dir);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("bad2.json:7: ") != std::string::npos);  // topologies
  CHECK(r.output.find("does not divide") != std::string::npos);
  CHECK(r.output.find("bad2.json:9: routing \"zipf\"") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string cell; std::getline(l, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

TEST_CASE("v4-topologies: an unreachable tier is infeasible, a reachable one a ratio",
          "[cli][moe]") {
  const auto dir = scratch_dir("v4_topologies_tiers");
  // The bundled Flash comparison at 30 s and two light loads, tiers 1 (every system meets it)
  // and 100000 tok/s/user (none can).
  auto sweep = read_json(std::filesystem::path(SPARKSIM_SOURCE_DIR) /
                         "experiments/configs/v4_flash_dspark_vs_mtp1.json");
  std::string w = sweep["workload"]["synthetic"];
  w.replace(w.find("duration_s=300"), 14, "duration_s=30");
  sweep["workload"]["synthetic"] = w;
  sweep["tiers_tok_s_per_user"] = {1, 100000};
  write_text(dir / "sweep.json", sweep.dump(2));
  std::string text = topology_config((dir / "sweep.json").string(), "  \"gpus\": [\"h200\"]");
  // dep8 fits V4-Flash on H200; add dep4 on H100, which does not (refused with its numbers).
  text.replace(text.find("[\"h200\"]"), 8, "[\"h100\", \"h200\"]");
  text.replace(text.find("[\"dep8\"]"), 8, "[\"dep4\", \"dep8\"]");
  write_text(dir / "topo.json", text);
  const CliResult r = run_cli("v4-topologies --jobs 2 --config '" + (dir / "topo.json").string() +
                                  "' --out '" + (dir / "out").string() + "'",
                              dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("h100-dep4-balanced: refused: --topology: dep4 (fp8 experts) does not fit "
                      "deepseek-v4-flash on h100-sxm") != std::string::npos);

  // Per topology: the unreachable tier has no throughput and no ratio, the reachable one both.
  const auto rows = csv_rows(read_file(dir / "out" / "topologies.csv"));
  const auto& h = rows.at(0);
  const auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(h.begin(), h.end(), name) - h.begin());
  };
  int unreachable = 0, reachable = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    if (row[col("status")] != "ok") continue;
    if (row[col("tier")] == "100000") {
      ++unreachable;
      CHECK(row[col("best_tok_s_per_gpu")] == "infeasible");
      CHECK(row[col("throughput_vs_baseline")] == "infeasible");
      CHECK(row[col("speed_vs_baseline_at_matched_throughput")] == "-");
    } else if (row[col("tier")] == "1") {
      ++reachable;
      CHECK(std::stod(row[col("best_tok_s_per_gpu")]) > 0);
      if (row[col("system")] == "mtp1 + static:k=1") {
        CHECK(row[col("throughput_vs_baseline")] == "1.000");
      } else {
        CHECK(std::stod(row[col("throughput_vs_baseline")]) > 0);
      }
    }
  }
  // 3 entries run (h100 dep8, h200 dep8, h200 dep4) × 2 metrics × 2 systems.
  CHECK(unreachable == 12);
  CHECK(reachable == 12);

  // The summary: at the unreachable tier the baseline is infeasible on every topology and no
  // ratio is quoted; at the reachable one, a ratio over every topology.
  const auto summary = csv_rows(read_file(dir / "out" / "summary.csv"));
  const auto& sh = summary.at(0);
  const auto s = [&](const std::vector<std::string>& row, const std::string& name) {
    return row.at(static_cast<std::size_t>(std::find(sh.begin(), sh.end(), name) - sh.begin()));
  };
  REQUIRE(summary.size() == 1 + 2 * 2);  // 2 metrics × 2 tiers × 1 compared system
  for (std::size_t i = 1; i < summary.size(); ++i) {
    const auto& row = summary[i];
    CHECK(s(row, "topologies") == "3");
    if (s(row, "tier") == "100000") {
      CHECK(s(row, "baseline_infeasible") == "3");
      CHECK(s(row, "both_met") == "0");
      CHECK(s(row, "throughput_ratio_median").empty());
    } else {
      CHECK(s(row, "baseline_infeasible") == "0");
      CHECK(s(row, "both_met") == "3");
      CHECK_FALSE(s(row, "throughput_ratio_median").empty());
    }
  }
  CHECK(std::filesystem::exists(dir / "out" / "profiles" / "h200-dep8-balanced.json"));
  CHECK(std::filesystem::exists(dir / "out" / "h200-dep8-balanced" / "aggregates.csv"));
}

}  // namespace
}  // namespace sparksim::testing
