// `sparksim validate`: the vllm bench serve result reader on files in vLLM's saved layout and on
// malformed ones (path:line, exit 2), the replay against hand-computed timings, the exit code and
// JSON report, and engine presets recorded in config.json.
#include <fstream>
#include <iterator>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "common/input_error.hpp"
#include "experiments/sweep/sweep_config.hpp"
#include "experiments/validate/benchmark_case.hpp"
#include "experiments/validate/benchmark_replay.hpp"
#include "profiles/profile_io.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {
const std::string kDir = std::string(SPARKSIM_SOURCE_DIR) + "/tests/experiments/validate/";
const std::string kGoldenProfile = "tests/experiments/golden/two_requests/profile.json";

std::string message_of(const std::string& file) {
  try {
    read_vllm_bench_result(kDir + file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("vllm result with per-request lengths: failed requests left out, metrics read") {
  const BenchmarkCase c = read_vllm_bench_result(kDir + "vllm_result_detailed.json");
  REQUIRE(c.workload.requests.size() == 3);  // the 4th has output length 0 (an error)
  CHECK(c.workload.requests[2].prompt_tokens == 300);
  CHECK(c.workload.requests[2].output_tokens == 150);
  CHECK(c.workload.max_concurrency == 2);
  CHECK(std::isinf(c.workload.request_rate));
  CHECK(c.target == "qwen3-8b");
  CHECK(*c.measured.output_throughput == 240.0);
  CHECK(*c.measured.ttft_ms.p99 == 39.8);
  CHECK(*c.measured.tpot_ms.median == 7.25);
  CHECK(*c.measured.itl_ms.mean == 7.3);
}

TEST_CASE("vllm result without details: mean lengths spread to the exact totals") {
  const BenchmarkCase c = read_vllm_bench_result(kDir + "vllm_result_summary.json");
  REQUIRE(c.workload.requests.size() == 10);
  std::int64_t in = 0, out = 0;
  for (const auto& r : c.workload.requests) in += r.prompt_tokens, out += r.output_tokens;
  CHECK(in == 20005);
  CHECK(out == 1000);
  CHECK(c.workload.requests.front().prompt_tokens == 2001);  // 20005 = 5 x 2001 + 5 x 2000
  CHECK(c.workload.requests.back().prompt_tokens == 2000);
  CHECK(c.workload.request_rate == 4.0);
  CHECK(c.workload.max_concurrency == 0);
  CHECK_FALSE(c.measured.itl_ms.median.has_value());
}

TEST_CASE("malformed vllm results stop with path:line") {
  CHECK_THAT(message_of("vllm_result_bad_lens.json"),
             Catch::Contains("vllm_result_bad_lens.json:8:") && Catch::Contains("must match"));
  CHECK_THAT(message_of("vllm_result_bad_rate.json"),
             Catch::Contains("vllm_result_bad_rate.json:7:") && Catch::Contains("\"inf\""));
  CHECK_THAT(message_of("vllm_result_truncated.json"),
             Catch::Contains("vllm_result_truncated.json:") && Catch::Contains("invalid JSON"));
}

TEST_CASE("case roles: a calibration case may say what it calibrates, a check case may not") {
  const auto dir = scratch_dir("validate_roles");
  std::ifstream in(kDir + "tiny_case.json");
  const std::string tiny((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto with_role = [&](const std::string& role_line) {
    std::string text = tiny;
    text.replace(text.find("\"role\": \"check\","), 17, role_line);
    const std::string path = (dir / "case.json").string();
    std::ofstream(path) << text;
    return path;
  };
  const auto message_for = [&](const std::string& role_line) -> std::string {
    try {
      read_benchmark_cases(with_role(role_line));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  const BenchmarkCase fits =
      read_benchmark_cases(
          with_role("\"role\": \"calibration\", \"calibrates\": \"frontend_request_ms\","))
          .front();
  CHECK(fits.role == CaseRole::kCalibration);
  CHECK(fits.calibrates == "frontend_request_ms");
  CHECK(read_benchmark_cases(with_role("\"role\": \"check\",")).front().calibrates.empty());
  // The role line is line 7 of tiny_case.json.
  CHECK_THAT(message_for("\"role\": \"check\", \"calibrates\": \"frontend_request_ms\","),
             Catch::Contains("case.json:7:") && Catch::Contains("set on a check case"));
  CHECK_THAT(message_for("\"role\": \"calibration\", \"calibrates\": \"per_step_us\","),
             Catch::Contains("case.json:7:") && Catch::Contains("must be \"frontend_request_ms\""));
  CHECK_THAT(message_for("\"role\": \"tuned\","),
             Catch::Contains("case.json:7:") && Catch::Contains("must be \"check\""));
}

TEST_CASE("validate CLI: bad result file exits 2 with path:line and writes no report") {
  const auto dir = scratch_dir("validate_bad");
  const auto r = run_cli(
      "validate --result tests/experiments/validate/vllm_result_bad_lens.json "
      "--profile " +
          kGoldenProfile + " --json " + (dir / "r.json").string(),
      dir);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("vllm_result_bad_lens.json:8:"));
  CHECK_FALSE(std::filesystem::exists(dir / "r.json"));
}

TEST_CASE("replay, no speculation, one request at a time: the closed form") {
  // 10 ms per step; a request is one prefill step (first token) and output - 1 decode steps, so
  // its service time is output x 10 ms and the 4 requests take 4 x 5 x 10 ms = 0.2 s.
  const Profile p = load_profile(std::string(SPARKSIM_SOURCE_DIR) + "/" + kGoldenProfile);
  const BenchmarkCase c = read_benchmark_cases(kDir + "tiny_case.json").front();
  const SimulatedMetrics s = replay_case(c, p);
  CHECK(s.completed == 4);
  CHECK(s.duration_s == Approx(0.2));
  CHECK(s.output_throughput == Approx(100.0));
  CHECK(*s.ttft_ms.mean == Approx(10.0));
  CHECK(*s.tpot_ms.median == Approx(10.0));
  CHECK(*s.itl_ms.p99 == Approx(10.0));  // exact: the gaps between chunks the client receives

  SECTION("a front-end latency adds to TTFT and to every request's time in the closed loop") {
    ReplayOptions o;
    o.front_end = FrontEndCosts{.latency_ms = 5};
    const SimulatedMetrics d = replay_case(c, p, o);
    CHECK(*d.ttft_ms.mean == Approx(15.0));
    CHECK(d.duration_s == Approx(4 * 0.055));
    CHECK(*d.tpot_ms.mean == Approx(10.0));
  }
}

TEST_CASE("validate CLI: exit 0 within tolerance, 3 outside, JSON report either way") {
  const auto dir = scratch_dir("validate_exit");
  const std::string base = "validate --set tests/experiments/validate/tiny_case.json --profile " +
                           kGoldenProfile + " --json ";
  const auto ok = run_cli(base + (dir / "ok.json").string(), dir);
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  const auto report = read_json(dir / "ok.json");
  CHECK(report["pass"] == true);
  CHECK(report["cases"][0]["metrics"]["output_throughput_tok_s"]["relative_error"].get<double>() ==
        Approx(0.0).margin(1e-9));

  // The same case measured 25% faster than the closed form: outside 5% / 10%.
  auto text =
      read_file(std::string(SPARKSIM_SOURCE_DIR) + "/tests/experiments/validate/tiny_case.json");
  text.replace(text.find("100.0"), 5, "125.0");
  {
    std::ofstream f(dir / "fast.json");
    f << text;
  }
  const auto bad = run_cli("validate --set " + (dir / "fast.json").string() + " --profile " +
                               kGoldenProfile + " --json " + (dir / "bad.json").string(),
                           dir);
  CHECK(bad.exit_code == 3);
  const auto bad_report = read_json(dir / "bad.json");
  CHECK(bad_report["pass"] == false);
  CHECK(bad_report["check"]["output_throughput"]["worst_abs_error"].get<double>() ==
        Approx(0.2));  // (100 - 125) / 125
}

// The figures README.md and docs/validation.md state for the bundled set (the measured side is
// the published GPUStack numbers kept in experiments/validate/data/): on the calibrated
// measured-db profiles the check cases stay within them, rounded up at their last printed digit.
// Since the large-chunk scale is gone (issue 32) the two Qwen3-14B check cases miss the targets
// (docs/validation.md says why), so the run exits 3; the Qwen3-8B check cases stay within 6.5%.
TEST_CASE("validate: the bundled set's check cases within the documented errors") {
  const auto dir = scratch_dir("validate_bundled");
  const auto run = run_cli(
      "validate --set experiments/validate/data/h100_serving_set.json --profiles "
      "profiles/calibrated/measured-db/h100-sxm --json " +
          (dir / "report.json").string(),
      dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 3);
  const auto report = read_json(dir / "report.json");
  const auto& throughput = report["check"]["output_throughput"];
  const auto& tpot = report["check"]["tpot_median"];
  CHECK(throughput["cases"] == 6);
  CHECK(throughput["mean_abs_error"].get<double>() <= 0.2525);
  CHECK(throughput["worst_abs_error"].get<double>() <= 0.7265);
  CHECK(tpot["cases"] == 6);
  CHECK(tpot["mean_abs_error"].get<double>() <= 0.1665);
  CHECK(tpot["worst_abs_error"].get<double>() <= 0.4465);
  for (const auto& c : report["cases"]) {
    if (c["role"] != "check" || c["name"].get<std::string>().rfind("qwen3-8b", 0) != 0) continue;
    INFO(c["name"]);
    CHECK(std::abs(c["metrics"]["output_throughput_tok_s"]["relative_error"].get<double>()) <=
          0.045);
    CHECK(std::abs(c["metrics"]["tpot_median_ms"]["relative_error"].get<double>()) <= 0.065);
  }
}

TEST_CASE("engine presets are applied and recorded in config.json and explicit flags win") {
  const auto dir = scratch_dir("engine_preset");
  const std::string run =
      "run --synthetic rate=5,prompt=fixed:20,output=fixed:5,duration_s=2 "
      "--profile " +
      kGoldenProfile + " --drafter none --quiet --out ";
  const auto a = run_cli(run + (dir / "a").string() + " --engine vllm", dir);
  INFO(a.output);
  REQUIRE(a.exit_code == 0);
  const auto ca = read_json(dir / "a" / "config.json");
  CHECK(ca["engine_preset"] == "vllm");
  CHECK(ca["max_running"] == 1024);
  CHECK(ca["max_batch_tokens"] == 8192);
  CHECK(ca["memory_utilization"].get<double>() == 0.9);
  CHECK(ca["drafter"] == "none");
  CHECK(ca["gamma"] == 0);

  const auto b = run_cli(run + (dir / "b").string() + " --engine sglang --max-running 64", dir);
  REQUIRE(b.exit_code == 0);
  const auto cb = read_json(dir / "b" / "config.json");
  CHECK(cb["engine_preset"] == "sglang");
  CHECK(cb["max_running"] == 64);
  CHECK(cb["memory_utilization"].get<double>() == 0.88);

  const auto c = run_cli(run + (dir / "c").string() + " --engine tgi", dir);
  CHECK(c.exit_code == 2);
  CHECK_THAT(c.output,
             Catch::Contains("--engine: unknown engine preset 'tgi'; valid: vllm@0.11, vllm@0.12, "
                             "sglang@0.5, trtllm@1.0, trtllm@1.2 (aliases: vllm = vllm@0.12"));
  CHECK_FALSE(std::filesystem::exists(dir / "c"));
}

TEST_CASE(
    "sweep configs: engine.preset sets the limits, explicit keys win, a bad name is located") {
  const std::string config = R"({
  "schema": "sparksim.sweep/1",
  "title": "t",
  "profile": "tests/experiments/golden/two_requests/profile.json",
  "workload": {"synthetic": "prompt=fixed:20,output=fixed:5,duration_s=2"},
  "load": {"concurrency": [2]},
  "systems": [{"drafter": "none", "policies": ["static"]}],
  "seeds": [1],
  "engine": {"preset": "sglang", "max_batch_tokens": 2048}
})";
  const auto dir = scratch_dir("sweep_preset");
  std::ofstream(dir / "cfg.json") << config;
  const SweepConfig c = load_sweep_config((dir / "cfg.json").string());
  CHECK(c.engine == "sglang");
  CHECK(c.max_running == 4096);
  CHECK(c.max_batch_tokens == 2048);
  const RunOptions o = point_run_options(c, expand_points(c).front());
  CHECK(o.engine == "sglang");
  CHECK(o.drafter == "none");
  // The resolved config names the preset and reads back to itself.
  const SweepConfig back = parse_sweep_config(JsonFile::from_json(c.resolved(), "resolved.json"));
  CHECK(back.resolved().dump() == c.resolved().dump());

  std::string bad = config;
  bad.replace(bad.find("\"sglang\""), 8, "\"tgi\"");
  std::ofstream(dir / "bad.json") << bad;
  try {
    load_sweep_config((dir / "bad.json").string());
    FAIL("loaded");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("bad.json:9:") && Catch::Contains("unknown engine preset"));
  }
}

TEST_CASE("drafter none runs wherever a drafter does: run, cluster and plan") {
  const auto dir = scratch_dir("drafter_none");
  const std::string workload =
      " --synthetic rate=20,prompt=fixed:20,output=fixed:5,duration_s=2 --profile " +
      kGoldenProfile + " --drafter none --quiet --out ";
  const auto run = run_cli("run" + workload + (dir / "run").string(), dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto s = read_json(dir / "run" / "summary.json");
  CHECK(s["tau_mean"].get<double>() == 1.0);  // one token per request-step
  CHECK(s["rejected_draft_frac"].get<double>() == 0.0);
  const auto cluster = run_cli("cluster --replicas 2" + workload + (dir / "cluster").string(), dir);
  INFO(cluster.output);
  CHECK(cluster.exit_code == 0);
  const auto plan =
      run_cli("plan --synthetic rate=20,prompt=fixed:20,output=fixed:5,duration_s=2 --profile " +
                  kGoldenProfile + " --policies none+static --slo 'ttft_p99_ms<=1000' " +
                  "--max-replicas 2 --jobs 1 --quiet --out " + (dir / "plan").string(),
              dir);
  INFO(plan.output);
  CHECK(plan.exit_code == 0);
}
