// `sparksim cluster --plan DIR` through the real binary: it serves the fleet a V4 topology plan
// chose (the topology's composed profile, its engines, the prefill pool the plan sized) and the
// cluster's outcome is the one the plan judged; a missing plan, a plan where no topology met the
// SLO, or a flag the plan decides given beside it exits 2 and writes nothing.
#include <filesystem>

#include <catch2/catch.hpp>

#include "common/csv_table.hpp"
#include "tests/experiments/cli_harness.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {
const std::string kWorkload =
    "--synthetic rate=200,prompt=fixed:512,output=fixed:64,domain=chat,duration_s=3 ";
}  // namespace

TEST_CASE("cluster --plan serves the planned V4 fleet with its prefill pool", "[cluster][moe]") {
  const auto dir = scratch_dir("planned_cluster");
  const CliResult plan = run_cli(
      "plan --target deepseek-v4-flash --gpu h100 --topologies dep4 dep8 --prefill-share 0.25 " +
          kWorkload +
          "--slo \"ttft_p99_ms<=2000,tok_s_per_user_p50>=60\" --policies mtp1+static:k=1 "
          "--date 2026-11-25 --out '" +
          (dir / "plan").string() + "'",
      dir);
  INFO(plan.output);
  REQUIRE(plan.exit_code == 0);
  const CsvTable t = CsvTable::parse(read_file(dir / "plan" / "topology.csv"), "topology.csv");
  REQUIRE(t.rows() == 2);
  REQUIRE(t.cell(1, t.column("status")) == "chosen");
  const auto engines = t.integer(1, t.column("engines"));
  const auto prefill = t.integer(1, t.column("prefill_engines"));
  CHECK(engines == 8 * t.integer(1, t.column("replicas")));
  CHECK(prefill == (engines + 2) / 4);  // round(0.25 x engines)

  const CliResult served = run_cli("cluster --plan '" + (dir / "plan").string() + "' " + kWorkload +
                                       "--out '" + (dir / "cluster").string() + "'",
                                   dir);
  INFO(served.output);
  REQUIRE(served.exit_code == 0);
  const auto summary = read_json(dir / "cluster" / "summary.json");
  CHECK(summary["gpus"].get<double>() == t.integer(1, t.column("gpus")));
  CHECK(summary["cluster"]["prefill_replicas"].get<double>() == prefill);
  CHECK(summary["cluster"]["decode_replicas"].get<double>() == engines - prefill);
  CHECK(summary["cluster"]["kv_transfers"].get<double>() > 0);
  // The plan judged this very simulation: its SLO values at the answer are the cluster's.
  const CsvTable p = CsvTable::parse(read_file(dir / "plan" / "plan.csv"), "plan.csv");
  std::size_t row = 0;
  while (row < p.rows() && p.cell(row, p.column("status")) != "met") ++row;
  REQUIRE(row < p.rows());
  CHECK(summary["tok_s_per_user"]["p50"].get<double>() ==
        Approx(p.number(row, p.column("tok_s_per_user_p50"))).epsilon(1e-6));
  fs::remove_all(dir);
}

TEST_CASE("cluster --plan refuses a missing or unmet plan and flags the plan decides",
          "[cluster][moe]") {
  const auto dir = scratch_dir("planned_cluster_bad");
  const CliResult unmet =
      run_cli("plan --target deepseek-v4-flash --gpu h100 --topologies dep8 " + kWorkload +
                  "--slo \"tok_s_per_user_p50>=100000\" --max-gpus 16 --policies mtp1+static:k=1 "
                  "--out '" +
                  (dir / "unmet").string() + "'",
              dir);
  INFO(unmet.output);
  REQUIRE(unmet.exit_code == 0);
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--plan '" + (dir / "nowhere").string() + "'", "topology.csv: not found"},
      {"--plan '" + (dir / "unmet").string() + "'", "no topology met the SLO for mtp1+static:k=1"},
      {"--plan '" + (dir / "unmet").string() + "' --replicas 3 --router kv-aware",
       "--plan: --replicas, --router come(s) from the plan"},
      {"--plan-policy mtp1+static:k=1 --replicas 2 --profile x.json", "only with --plan"},
  };
  for (const Case& c : cases) {
    const CliResult r = run_cli(
        "cluster " + c.args + " " + kWorkload + "--out '" + (dir / "out").string() + "'", dir);
    INFO(c.args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(c.message));
    CHECK_FALSE(fs::exists(dir / "out"));
  }
  fs::remove_all(dir);
}
