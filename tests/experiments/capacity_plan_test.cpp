// Capacity planning pieces: the SLO grammar, the replica search, and round-robin replicas against
// independent runs of the round-robin split written out as trace files.
#include "experiments/plan/capacity_plan.hpp"

#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "common/input_error.hpp"
#include "experiments/plan/fleet.hpp"

using namespace sparksim;
namespace fs = std::filesystem;

TEST_CASE("SLO terms parse with their metric, statistic, direction and bound") {
  const auto terms = parse_slo_spec("ttft_p99_ms<=2000, tok_s_per_user_p50>=80,e2e_mean_s<=30");
  REQUIRE(terms.size() == 3);
  CHECK(terms[0].metric == SloTerm::Metric::kTtftMs);
  CHECK(terms[0].percentile == 99);
  CHECK(terms[0].at_most);
  CHECK(terms[0].bound == 2000);
  CHECK(terms[1].metric == SloTerm::Metric::kTokSPerUser);
  CHECK_FALSE(terms[1].at_most);
  CHECK(terms[1].text() == "tok_s_per_user_p50>=80");
  CHECK(terms[2].mean);
  CHECK(parse_slo_spec("tpot_p99.9_ms<=50")[0].percentile == Approx(99.9));

  RequestSamples s;
  s.ttft_ms = {10, 20, 30, 40, 50};
  s.e2e_s = {1, 2, 3};
  CHECK(terms[0].measure(s) == Approx(49.6));  // rank 0.99 * 4 = 3.96 → 40 + 0.96 * 10
  CHECK(terms[2].measure(s) == Approx(2.0));
  CHECK(terms[0].holds(2000));
  CHECK_FALSE(terms[0].holds(2000.5));
}

TEST_CASE("a bad SLO lists every bad term") {
  try {
    parse_slo_spec("ttft_p100_ms<=5,latency<=3,tok_s_per_user_p50>=x,ttft_p99_ms=2");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK_THAT(m, Catch::Contains("percentile 100 must be in (0, 100)"));
    CHECK_THAT(m, Catch::Contains("unknown metric 'latency'"));
    CHECK_THAT(m, Catch::Contains("'x' is not a number"));
    CHECK_THAT(m, Catch::Contains("'ttft_p99_ms=2' must be NAME<=VALUE or NAME>=VALUE"));
  }
  CHECK_THROWS_AS(parse_slo_spec(""), InputError);
  CHECK_THROWS_AS(parse_slo_spec("ttft_p99_ms<=1,ttft_p99_ms<=2"), InputError);
  CHECK_THROWS_AS(parse_slo_spec("ttft_p99_s<=1"), InputError);  // TTFT is in ms
}

TEST_CASE("the replica search finds the smallest passing count in O(log n) evaluations") {
  for (std::int64_t need = 1; need <= 70; ++need) {
    std::map<std::int64_t, bool> calls;
    const auto found = search_min_replicas(64, [&](std::int64_t n) {
      calls[n] = n >= need;
      return n >= need;
    });
    INFO("need " << need);
    if (need > 64) {
      CHECK_FALSE(found);
      CHECK(calls.count(64));
      continue;
    }
    REQUIRE(found);
    CHECK(*found == need);
    CHECK(calls.size() <= 14);  // 7 doublings + 6 bisections at most
    if (need > 1) {
      REQUIRE(calls.count(need - 1));  // the answer's predecessor was seen to fail
      CHECK_FALSE(calls[need - 1]);
    }
  }
  CHECK_FALSE(search_min_replicas(0, [](std::int64_t) { return true; }));
}

TEST_CASE("round-robin over N replicas equals N independent runs on the round-robin split") {
  const auto dir = testing::scratch_dir("fleet_split");
  // 60 requests, bursts that queue on one replica.
  std::string all = "arrival_s,prompt_tokens,output_tokens,domain\n";
  std::string part[3];
  for (auto& p : part) p = all;
  for (int i = 0; i < 60; ++i) {
    std::ostringstream row;
    row << (i / 6) * 0.05 << "," << 200 + 37 * (i % 7) << "," << 20 + 11 * (i % 5) << ",code\n";
    all += row.str();
    part[i % 3] += row.str();
  }
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  RunOptions o;
  o.trace_path = write("all.csv", all);
  o.profile_path = "profiles/analytic/h100-sxm/qwen3-8b.json";
  o.drafter = "dspark-7";
  o.policy = "static:k=3";
  o.seed = 3;
  o.max_running = 4;  // small replicas, so the split changes queueing
  const RunSetup setup = prepare_run(o);
  const FleetOutcome fleet = make_fleet_simulator("round-robin")->simulate(setup, 3, 2);
  CHECK(fleet.replicas == 3);
  CHECK(fleet.gpus == 3);

  RequestSamples pooled;
  std::int64_t tokens = 0;
  double end_s = 0;
  for (int k = 0; k < 3; ++k) {
    RunOptions ok = o;
    ok.trace_path = write("part" + std::to_string(k) + ".csv", part[k]);
    std::ostringstream requests;
    const RunOutcome out = execute_run(prepare_run(ok), &requests);
    pooled.add_requests_csv(requests.str());
    tokens += out.summary.at("output_tokens").get<std::int64_t>();
    end_s = std::max(end_s, out.summary.at("sim_duration_s").get<double>());
  }
  CHECK(fleet.requests_completed == 60);
  CHECK(fleet.output_tokens == tokens);
  CHECK(fleet.duration_s == Approx(end_s));
  CHECK(sample_percentile(fleet.samples.ttft_ms, 99) ==
        Approx(sample_percentile(pooled.ttft_ms, 99)));
  CHECK(sample_percentile(fleet.samples.tok_s_per_user, 50) ==
        Approx(sample_percentile(pooled.tok_s_per_user, 50)));
  CHECK(fleet.samples.e2e_s.size() == pooled.e2e_s.size());
  CHECK_THROWS_AS(make_fleet_simulator("random"), InputError);
  fs::remove_all(dir);
}
