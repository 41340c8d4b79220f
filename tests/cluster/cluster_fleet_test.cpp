// The fleets `sparksim plan` searches over, built on the cluster layer: the cluster under
// round-robin gives exactly what independent runs on the round-robin split give; other routers and
// disaggregated layouts run as cluster simulations in forked children; and `sparksim plan`
// compares routers and colocated against disaggregated layouts end to end.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <catch2/catch.hpp>

#include "common/csv_table.hpp"
#include "common/input_error.hpp"
#include "experiments/plan/fleet.hpp"
#include "tests/experiments/cli_harness.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {

// 60 requests in bursts of 6 every 50 ms: they queue on small replicas.
RunSetup bursty_setup(const fs::path& dir) {
  std::string all = "arrival_s,prompt_tokens,output_tokens,domain\n";
  for (int i = 0; i < 60; ++i) {
    std::ostringstream row;
    row << (i / 6) * 0.05 << "," << 200 + 37 * (i % 7) << "," << 20 + 11 * (i % 5) << ",code\n";
    all += row.str();
  }
  std::ofstream(dir / "all.csv") << all;
  RunOptions o;
  o.trace_path = (dir / "all.csv").string();
  o.profile_path = "profiles/analytic/h100-sxm/qwen3-8b.json";
  o.drafter = "dspark-7";
  o.policy = "static:k=3";
  // Draws nothing at random: request numbering (global in a cluster, local in a lone run) cannot
  // matter, so the two fleets must agree exactly.
  o.acceptance = "bernoulli:p=1";
  o.seed = 3;
  o.max_running = 4;
  return prepare_run(o);
}

std::vector<double> sorted(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("a round-robin cluster fleet equals the fleet of independent runs exactly") {
  const auto dir = scratch_dir("fleet_cluster_rr");
  const RunSetup setup = bursty_setup(dir);
  for (std::int64_t n : {1, 3}) {
    INFO(n << " replicas");
    const FleetOutcome split = make_fleet_simulator("round-robin")->simulate(setup, n, 1);
    const FleetOutcome cluster = make_cluster_fleet_simulator("round-robin")->simulate(setup, n, 1);
    CHECK(cluster.replicas == n);
    CHECK(cluster.gpus == split.gpus);
    CHECK(cluster.prefill_replicas == 0);
    CHECK(cluster.infeasible.empty());
    CHECK(cluster.requests_total == 60);
    CHECK(cluster.requests_completed == split.requests_completed);
    CHECK(cluster.requests_completed == 60);
    CHECK(cluster.output_tokens == split.output_tokens);
    CHECK(cluster.duration_s == split.duration_s);
    CHECK(cluster.throughput_tok_s == split.throughput_tok_s);
    CHECK(sorted(cluster.samples.ttft_ms) == sorted(split.samples.ttft_ms));
    CHECK(sorted(cluster.samples.tpot_ms) == sorted(split.samples.tpot_ms));
    CHECK(sorted(cluster.samples.e2e_s) == sorted(split.samples.e2e_s));
    CHECK(sorted(cluster.samples.queue_ms) == sorted(split.samples.queue_ms));
  }
  fs::remove_all(dir);
}

TEST_CASE("disaggregated fleets split replicas by the prefill share and need two at least") {
  CHECK(prefill_replicas_for(0, 8) == 0);
  CHECK(prefill_replicas_for(0.25, 1) == 0);
  CHECK(prefill_replicas_for(0.25, 2) == 1);
  CHECK(prefill_replicas_for(0.25, 8) == 2);
  CHECK(prefill_replicas_for(0.5, 3) == 2);    // round half away from zero
  CHECK(prefill_replicas_for(0.01, 10) == 1);  // at least one prefills
  CHECK(prefill_replicas_for(0.9, 4) == 3);    // at least one decodes

  const auto dir = scratch_dir("fleet_cluster_pd");
  const RunSetup setup = bursty_setup(dir);
  const auto pd = make_fleet_simulator("kv-aware", 0.25);
  CHECK(pd->router() == "kv-aware");
  CHECK(pd->layout() == "prefill-share=0.25");
  const FleetOutcome one = pd->simulate(setup, 1, 1);
  CHECK_FALSE(one.infeasible.empty());
  CHECK(one.requests_completed == 0);
  const FleetOutcome four = pd->simulate(setup, 4, 1);
  CHECK(four.infeasible.empty());
  CHECK(four.prefill_replicas == 1);
  CHECK(four.gpus == 4);
  CHECK(four.requests_completed == 60);
  CHECK(four.samples.ttft_ms.size() == 60);
  // The same fleet colocated: every replica serves whole requests, no transfer on the first token.
  const FleetOutcome colocated = make_fleet_simulator("kv-aware")->simulate(setup, 4, 1);
  CHECK(colocated.requests_completed == 60);
  CHECK(colocated.output_tokens == four.output_tokens);
  // Deterministic: the same fleet twice gives the same samples.
  const FleetOutcome again = pd->simulate(setup, 4, 1);
  CHECK(again.samples.ttft_ms == four.samples.ttft_ms);
  fs::remove_all(dir);
}

TEST_CASE("fleet routers come from the cluster table and shares are checked") {
  CHECK(make_fleet_simulator("least-loaded")->layout() == "colocated");
  try {
    make_fleet_simulator("random");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("valid: round-robin, least-loaded, kv-aware"));
  }
  for (double share : {1.0, -0.1, std::numeric_limits<double>::quiet_NaN()}) {
    INFO(share);
    CHECK_THROWS_AS(make_fleet_simulator("round-robin", share), InputError);
  }
}

TEST_CASE("plan compares routers and colocated against disaggregated layouts") {
  const auto dir = scratch_dir("plan_fleets");
  const std::string workload =
      "plan --trace traces/azure_code_2023.csv --max-requests 150 --rate-scale 20 "
      "--profile profiles/analytic/h100-sxm/qwen3-8b.json --policies dspark-7+static:k=3 "
      "--max-replicas 8 --jobs 1 --slo \"ttft_p99_ms<=1500\" ";
  const auto r = run_cli(workload + "--router round-robin kv-aware --prefill-share 0 0.5 --out " +
                             (dir / "plan").string(),
                         dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("dspark-7 + static:k=3 [kv-aware, prefill-share=0.5]: "));
  CHECK_THAT(r.output, Catch::Contains("dspark-7 + static:k=3 [round-robin, colocated]: "));
  const CsvTable plan = CsvTable::parse(read_file(dir / "plan" / "plan.csv"), "plan.csv");
  const CsvTable search = CsvTable::parse(read_file(dir / "plan" / "search.csv"), "search.csv");
  REQUIRE(plan.rows() == 4);
  const std::pair<std::string, std::string> fleets[] = {{"round-robin", "colocated"},
                                                        {"round-robin", "prefill-share=0.5"},
                                                        {"kv-aware", "colocated"},
                                                        {"kv-aware", "prefill-share=0.5"}};
  for (std::size_t p = 0; p < plan.rows(); ++p) {
    INFO(plan.raw_row(p));
    const auto& [router, layout] = fleets[p];
    CHECK(plan.cell(p, plan.column("router")) == router);
    CHECK(plan.cell(p, plan.column("layout")) == layout);
    REQUIRE(plan.cell(p, plan.column("status")) == "met");
    const auto n = plan.integer(p, plan.column("replicas"));
    CHECK(plan.number(p, plan.column("ttft_p99_ms")) <= 1500);
    CHECK(plan.integer(p, plan.column("requests_completed")) == 150);
    const bool disaggregated = layout != "colocated";
    if (disaggregated) CHECK(n >= 2);
    // The answer was simulated and met; one fewer was simulated and missed (or is impossible).
    bool saw_n = false, saw_below = n == 1;
    for (std::size_t s = 0; s < search.rows(); ++s) {
      if (search.cell(s, search.column("router")) != router ||
          search.cell(s, search.column("layout")) != layout) {
        continue;
      }
      const auto k = search.integer(s, search.column("replicas"));
      const auto prefill = search.integer(s, search.column("prefill_replicas"));
      CHECK(prefill == (disaggregated ? prefill_replicas_for(0.5, k) : 0));
      if (disaggregated && k == 1) {
        CHECK(search.integer(s, search.column("meets")) == 0);
        CHECK_THAT(search.cell(s, search.column("reason")), Catch::Contains("at least 2 replicas"));
      }
      if (k == n) saw_n = search.integer(s, search.column("meets")) == 1;
      if (k == n - 1) saw_below = search.integer(s, search.column("meets")) == 0;
    }
    CHECK(saw_n);
    CHECK(saw_below);
  }
  // The cluster fleets' searches side by side (two children at once) try the same counts and
  // write the same files, byte for byte.
  std::string two_jobs = workload;
  two_jobs.replace(two_jobs.find("--jobs 1"), 8, "--jobs 2");
  const auto parallel = run_cli(two_jobs + "--router round-robin kv-aware --prefill-share 0 0.5 " +
                                    "--out " + (dir / "plan2").string(),
                                dir);
  INFO(parallel.output);
  REQUIRE(parallel.exit_code == 0);
  // The answers printed before "wrote", less what a sanitizer runtime prints about itself: under
  // ASan every forked child reports "==PID==WARNING: ASan is ignoring requested
  // __asan_handle_no_return" (google/sanitizers#189), which is not the program's output.
  const auto answers = [](const std::string& out) {
    std::istringstream lines(out.substr(0, out.find("wrote")));
    std::string kept;
    for (std::string line; std::getline(lines, line);) {
      const bool sanitizer_note = line.rfind("==", 0) == 0 || line.rfind("For details see", 0) == 0;
      if (!sanitizer_note) kept += line + "\n";
    }
    return kept;
  };
  CHECK(answers(parallel.output) == answers(r.output));
  for (const char* file : {"plan.csv", "search.csv"}) {
    INFO(file);
    CHECK(read_file(dir / "plan2" / file) == read_file(dir / "plan" / file));
  }
  const auto config = read_json(dir / "plan" / "config.json");
  CHECK(config["routers"] == nlohmann::json::array({"round-robin", "kv-aware"}));
  CHECK(config["layouts"] == nlohmann::json::array({"colocated", "prefill-share=0.5"}));

  const auto bad = run_cli(
      workload + "--router random --prefill-share 1.5 --out " + (dir / "bad").string(), dir);
  INFO(bad.output);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("valid: round-robin, least-loaded, kv-aware"));
  CHECK_THAT(bad.output, Catch::Contains("--prefill-share 1.5: must be in [0, 1)"));
  CHECK_FALSE(fs::exists(dir / "bad"));
  // A layout the engine options exclude is reported before the search starts.
  const auto excluded = run_cli(
      workload + "--prefill-share 0.5 --prefill separate --out " + (dir / "bad").string(), dir);
  INFO(excluded.output);
  CHECK(excluded.exit_code == 2);
  CHECK_THAT(excluded.output, Catch::Contains("exclude each other"));
  CHECK_FALSE(fs::exists(dir / "bad"));
  fs::remove_all(dir);
}
