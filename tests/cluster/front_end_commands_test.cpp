// One workload, profile and engine preset give one TTFT whatever the command: `run`, a one-replica
// `cluster` and `validate`'s benchmark replay of the same closed loop (2 users, requests of
// 10 prompt / 5 output tokens, the golden profile's 10 ms steps) on vllm@0.11, whose front end
// (sim/engine_preset.cpp) is part of all three. Worked by hand: the two requests sent together are
// one intake batch (batch + 2 x request), seen after the latency, then 1 prefill + 4 decode
// steps; both finish together, so every pair repeats it: TTFT = batch + 2 x request + latency +
// 10 ms for every request. And the preset without a front end (vllm@0.12) gives the bare 10 ms.
#include <fstream>

#include <catch2/catch.hpp>

#include "sim/engine_preset.hpp"
#include "tests/experiments/cli_harness.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {

const std::string kGolden = "tests/experiments/golden/two_requests/profile.json";

// The benchmark case `validate` replays: the closed loop `run` and `cluster` simulate below.
std::string closed_loop_case(const std::string& engine) {
  return R"json({
  "schema": "sparksim.benchmark/1",
  "name": "golden-model 6 requests c=2",
  "source": "hand-computed, tests/cluster/front_end_commands_test.cpp",
  "engine": ")json" +
         engine + R"json(",
  "target": "golden-model",
  "role": "check",
  "workload": {"num_prompts": 6, "input": "fixed:10", "output": "fixed:5", "max_concurrency": 2,
               "request_rate": "inf"},
  "measured": {"output_throughput": 100.0, "ttft_ms": [10, 10, 10], "tpot_ms": [10, 10, 10]}
})json";
}

struct Ttfts {
  double run = 0, cluster = 0, validate = 0;
};

Ttfts ttft_by_command(const std::string& engine, const std::filesystem::path& dir) {
  const std::string workload =
      "--synthetic prompt=fixed:10,output=fixed:5,duration_s=0.3 --closed-loop-users 2 --profile " +
      kGolden + " --drafter none --engine " + engine + " --quiet --out ";
  const auto run = run_cli("run " + workload + (dir / "run").string(), dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto cluster =
      run_cli("cluster --replicas 1 " + workload + (dir / "cluster").string(), dir);
  INFO(cluster.output);
  REQUIRE(cluster.exit_code == 0);
  {
    std::ofstream out(dir / "case.json");
    out << closed_loop_case(engine);
  }
  const auto validate = run_cli("validate --set " + (dir / "case.json").string() + " --profile " +
                                    kGolden + " --json " + (dir / "validate.json").string(),
                                dir);
  INFO(validate.output);
  REQUIRE((validate.exit_code == 0 || validate.exit_code == 3));  // 3: outside the tolerance
  const auto summary_run = read_json(dir / "run" / "summary.json");
  const auto summary_cluster = read_json(dir / "cluster" / "summary.json");
  const auto report = read_json(dir / "validate.json");
  // Every round of two repeats the first, so the mean TTFT does not depend on how many rounds the
  // 0.3 s leave (3 with the front end, as the case's 6 requests; 6 without).
  REQUIRE(summary_run["requests_completed"].get<int>() >= 6);
  REQUIRE(summary_cluster["requests_completed"] == summary_run["requests_completed"]);
  REQUIRE(report["cases"][0]["simulated_completed"] == 6);
  return {summary_run["ttft_ms"]["mean"].get<double>(),
          summary_cluster["ttft_ms"]["mean"].get<double>(),
          report["cases"][0]["metrics"]["ttft_mean_ms"]["simulated"].get<double>()};
}

}  // namespace

TEST_CASE("one workload, profile and preset: one TTFT from run, cluster and validate") {
  const auto dir = scratch_dir("front_end_commands");
  const FrontEndCosts& f = find_engine_preset("vllm@0.11").front_end;
  REQUIRE(f.any());
  const double by_hand = f.intake_batch_ms + 2 * f.intake_request_ms + f.latency_ms + 10;
  const Ttfts with = ttft_by_command("vllm@0.11", dir);
  CHECK(with.run == Approx(by_hand).epsilon(1e-9));
  CHECK(with.cluster == with.run);
  CHECK(with.validate == Approx(with.run).epsilon(1e-9));
  CHECK(read_json(dir / "run" / "config.json")["front_end"]["intake_request_ms"] ==
        f.intake_request_ms);

  const Ttfts bare = ttft_by_command("vllm@0.12", dir);
  CHECK(bare.run == Approx(10));
  CHECK(bare.cluster == bare.run);
  CHECK(bare.validate == Approx(10));
  CHECK_FALSE(read_json(dir / "run" / "config.json").contains("front_end"));
}
