// What a plan's cluster children send back and when they stop: the samples they send are exactly
// what the cluster's requests.csv reads back as, and a plan whose children stop once a count's SLO
// is lost for good tries the same counts, gets the same verdicts and answers, and writes the same
// rows for every count it ran to the end as the plan that finishes every count (--finish-misses).
#include <fstream>

#include <catch2/catch.hpp>

#include "common/csv_table.hpp"
#include "experiments/plan/fleet.hpp"
#include "experiments/plan/plan_config.hpp"
#include "experiments/run/cluster_experiment.hpp"
#include "tests/experiments/cli_harness.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

TEST_CASE("a cluster child's samples are the values its requests.csv reads back as") {
  RunOptions o;
  o.trace_path = "traces/azure_code_2023.csv";
  o.max_requests = 300;
  o.rate_scale = 40;
  o.profile_path = "profiles/analytic/h100-sxm/qwen3-8b.json";
  o.drafter = "dspark-7";
  o.policy = "async-topk";
  o.seed = 5;
  const RunSetup setup = prepare_run(o);
  for (const char* router : {"least-loaded", "kv-aware"}) {
    INFO(router);
    const FleetOutcome fleet = make_fleet_simulator(router)->simulate(setup, 3, 1);
    ClusterOptions c;
    c.replicas = 3;
    c.router = router;
    const ClusterResult full = execute_cluster_in_subprocess(prepare_cluster(setup, c));
    RequestSamples from_csv;
    from_csv.add_requests_csv(full.requests_csv);
    REQUIRE(from_csv.ttft_ms.size() == 300);
    // Bit for bit and in completion order: the plan's percentiles and means cannot move.
    CHECK(fleet.samples.ttft_ms == from_csv.ttft_ms);
    CHECK(fleet.samples.tpot_ms == from_csv.tpot_ms);
    CHECK(fleet.samples.e2e_s == from_csv.e2e_s);
    CHECK(fleet.samples.queue_ms == from_csv.queue_ms);
    CHECK(fleet.samples.tok_s_per_user == from_csv.tok_s_per_user);
    CHECK(fleet.output_tokens == full.summary["output_tokens"].get<std::int64_t>());
    CHECK(fleet.duration_s == full.summary["sim_duration_s"].get<double>());
    CHECK(fleet.requests_rejected_kv == full.summary["requests_rejected_kv"].get<std::int64_t>());
    CHECK_FALSE(fleet.stopped_at);
  }
}

TEST_CASE("stopping certain misses changes no verdict, answer or finished row") {
  const auto dir = scratch_dir("plan_miss_stop");
  const std::string plan =
      "plan --trace traces/azure_code_2023.csv --max-requests 400 --rate-scale 30 "
      "--profile profiles/analytic/h100-sxm/qwen3-8b.json "
      "--policies dspark-7+static:k=3 mtp1+static:k=1 --router least-loaded kv-aware "
      "--prefill-share 0 0.5 --max-replicas 32 --jobs 2 "
      "--slo \"ttft_p99_ms<=1500,tok_s_per_user_p50>=60,e2e_mean_s<=20\" --out ";
  const auto stopped = run_cli(plan + (dir / "stopped").string(), dir);
  INFO(stopped.output);
  REQUIRE(stopped.exit_code == 0);
  const auto finished = run_cli(plan + (dir / "finished").string() + " --finish-misses", dir);
  INFO(finished.output);
  REQUIRE(finished.exit_code == 0);
  CHECK(read_file(dir / "stopped" / "plan.csv") == read_file(dir / "finished" / "plan.csv"));

  const CsvTable a = CsvTable::parse(read_file(dir / "stopped" / "search.csv"), "search.csv");
  const CsvTable b = CsvTable::parse(read_file(dir / "finished" / "search.csv"), "search.csv");
  REQUIRE(a.rows() == b.rows());
  const std::size_t stop = a.column("stopped_at_s"), meets = a.column("meets"),
                    done = a.column("requests_completed"), reason = a.column("reason");
  int stops = 0, disaggregated_stops = 0;
  for (std::size_t r = 0; r < a.rows(); ++r) {
    INFO(a.raw_row(r) << "\n" << b.raw_row(r));
    for (const char* name : {"policy", "router", "layout", "replicas", "meets"}) {
      CHECK(a.cell(r, a.column(name)) == b.cell(r, b.column(name)));
    }
    CHECK(b.cell(r, stop).empty());  // --finish-misses stops nothing
    if (a.cell(r, stop).empty()) {
      CHECK(a.raw_row(r) == b.raw_row(r));
      continue;
    }
    ++stops;
    if (a.cell(r, a.column("layout")) != "colocated") ++disaggregated_stops;
    CHECK(a.integer(r, meets) == 0);
    CHECK_THAT(a.cell(r, reason), Catch::Contains(" certain: "));
    CHECK(a.integer(r, done) < b.integer(r, done));
    CHECK(a.number(r, stop) > 0);
  }
  // The scenario stops counts on both layouts (a disaggregated one with KV transfers in flight).
  CHECK(stops >= 10);
  CHECK(disaggregated_stops >= 3);
  CHECK(read_json(dir / "stopped" / "config.json")["misses"] !=
        read_json(dir / "finished" / "config.json")["misses"]);

  // A plan file (a sensitivity study's experiment) takes the same switch.
  for (const bool finish : {false, true}) {
    std::ofstream(dir / "plan.json")
        << R"({"schema": "sparksim.plan/1", "synthetic": "rate=5,prompt=fixed:128,output=fixed:16,domain=chat,duration_s=10", )"
        << R"("profile": "profiles/analytic/h100-sxm/qwen3-8b.json", "slo": "ttft_p99_ms<=900", )"
        << R"("policies": ["mtp1+static:k=1"], "finish_misses": )" << (finish ? "true" : "false")
        << "}\n";
    CHECK(load_plan_config((dir / "plan.json").string()).options.finish_misses == finish);
  }
  fs::remove_all(dir);
}
