// The benchmark replay through the simulator's front end (sim/front_end.hpp, via the engine), every
// time worked by hand on the golden profile (10 ms steps, 5 steps per request): an intake slower
// than the engine sets the duration, every chunk is streamed through the same worker, N requests
// at t = 0 are one intake batch. The engine presets carry the front end: vLLM 0.11's fitted one,
// with its cases named, and none for the versions nothing measured. The step-term fit recovers a
// per-request intake from a throughput computed in closed form and hands it back apart from the
// profile's step terms.
#include <catch2/catch.hpp>

#include "experiments/validate/benchmark_case.hpp"
#include "experiments/validate/benchmark_replay.hpp"
#include "experiments/validate/step_term_fit.hpp"
#include "profiles/profile_io.hpp"
#include "sim/engine_preset.hpp"

using namespace sparksim;

namespace {
const std::string kDir = std::string(SPARKSIM_SOURCE_DIR) + "/tests/experiments/validate/";
const std::string kGoldenProfile =
    std::string(SPARKSIM_SOURCE_DIR) + "/tests/experiments/golden/two_requests/profile.json";

ReplayOptions with_front_end(double request_ms, double chunk_us, double batch_ms = 0) {
  ReplayOptions o;
  o.front_end = FrontEndCosts{
      .intake_batch_ms = batch_ms, .intake_request_ms = request_ms, .chunk_us = chunk_us};
  return o;
}
}  // namespace

TEST_CASE("replay: an intake slower than the engine sets the duration, N x intake + service") {
  const Profile golden = load_profile(kGoldenProfile);
  BenchmarkCase c = read_benchmark_cases(kDir + "tiny_case.json").front();
  c.workload.max_concurrency = 0;  // all 4 at t = 0
  const SimulatedMetrics s = replay_case(c, golden, with_front_end(100, 0));
  // The four are handed in together: one intake batch of 4 x 100 ms, after which all four reach
  // the scheduler at 400 ms and run together: 5 steps of 10 ms, every chunk as its step ends.
  CHECK(s.duration_s == Approx(4 * 0.1 + 0.05));
  CHECK(*s.ttft_ms.mean == Approx(410));
  CHECK(*s.tpot_ms.mean == Approx(10));
  CHECK(s.front_end_busy_s == Approx(0.4));
  SECTION("a preset without a front end replays without one") {
    c.engine = "sglang@0.5";
    const SimulatedMetrics o = replay_case(c, golden);
    // All four at once on the engine: one prefill step of 40 tokens, then 4 batched decodes.
    CHECK(o.duration_s == Approx(0.05));
    CHECK(o.front_end_busy_s == 0);
  }
}

TEST_CASE("replay: each streamed chunk costs the front end its time before the client sees it") {
  const BenchmarkCase c = read_benchmark_cases(kDir + "tiny_case.json").front();  // c = 1
  const SimulatedMetrics s = replay_case(c, load_profile(kGoldenProfile), with_front_end(0, 2000));
  // One request at a time, steps 10 ms apart: every chunk leaves 2 ms after its step. The next
  // request is sent at the engine's completion (50 ms) but its intake is queued behind the last
  // chunk (52 ms), as if sent when the client got it: each request takes 52 ms, and its first
  // chunk leaves 14 ms after it was sent (12 ms for the first, sent to an idle worker).
  CHECK(*s.ttft_ms.mean == Approx((12 + 3 * 14) / 4.0));
  CHECK(*s.tpot_ms.mean == Approx(10));
  CHECK(*s.itl_ms.p99 == Approx(10));
  CHECK(s.duration_s == Approx(4 * 0.052));
  CHECK(s.front_end_busy_s == Approx(20 * 0.002));
}

TEST_CASE("replay: N at t = 0 through batch a, N x request b, chunk c: every time by hand") {
  const Profile golden = load_profile(kGoldenProfile);
  BenchmarkCase c = read_benchmark_cases(kDir + "tiny_case.json").front();
  c.workload.max_concurrency = 0;  // N = 4 at t = 0
  // a = 30 ms per batch, b = 100 ms per request, c = 2 ms per chunk. The batch ends at
  // T = a + 4b = 430 ms; the engine then runs all four together, steps ending at T + 10k
  // (k = 1..5), each yielding one chunk per request. Four chunks take 8 ms < 10 ms, so the worker
  // is idle at every step end: request j's chunk of step k leaves at T + 10k + 2(j + 1).
  const SimulatedMetrics s = replay_case(c, golden, with_front_end(100, 2000, 30));
  CHECK(*s.ttft_ms.mean == Approx((442 + 444 + 446 + 448) / 4.0));  // sent at t = 0
  // p99 interpolates linearly, as numpy (vLLM's benchmark) does: rank 0.99 x 3 = 2.97.
  CHECK(*s.ttft_ms.p99 == Approx(446 + 0.97 * 2));
  CHECK(*s.tpot_ms.mean == Approx(10));  // (T + 50 - (T + 10)) / 4 for every request
  CHECK(*s.itl_ms.p99 == Approx(10));
  CHECK(s.duration_s == Approx(0.488));  // the last chunk: T + 50 + 8
  CHECK(s.front_end_busy_s == Approx(0.430 + 20 * 0.002));

  SECTION("closed loop at c = 1: each request is a batch of its own, batch + request") {
    c.workload.max_concurrency = 1;
    const SimulatedMetrics one = replay_case(c, golden, with_front_end(10, 0, 20));
    // Sent at the previous one's completion; 30 ms of intake, then 5 steps of 10 ms.
    CHECK(one.duration_s == Approx(4 * (0.030 + 0.050)));
    CHECK(*one.ttft_ms.mean == Approx(40));
  }
}

TEST_CASE("replay: a vLLM 0.11 case gets its preset's front end, latency and intake by hand") {
  BenchmarkCase c = read_benchmark_cases(kDir + "tiny_case.json").front();  // c = 1
  c.engine = "vllm@0.11";
  const SimulatedMetrics s = replay_case(c, load_profile(kGoldenProfile));
  // Each request alone: one batch of batch + request, then the latency, then 5 steps of 10 ms.
  const FrontEndCosts& f = find_engine_preset("vllm@0.11").front_end;
  const double intake_ms = f.intake_batch_ms + f.intake_request_ms;
  CHECK(*s.ttft_ms.mean == Approx(intake_ms + f.latency_ms + 10));
  CHECK(s.duration_s == Approx(4 * (intake_ms + f.latency_ms + 50) / 1000));
  CHECK(s.front_end_busy_s == Approx(4 * intake_ms / 1000));
}

TEST_CASE("engine presets: each front end is in bounds and says where it came from") {
  for (const EnginePreset& p : engine_presets()) {
    INFO(p.name);
    CHECK(front_end_costs_out_of_bounds(p.front_end).empty());
    CHECK_FALSE(p.front_end_source.empty());
    if (p.front_end.any()) {
      // A fitted front end names the cases that identify it (the bundled set's names).
      CHECK_THAT(std::string(p.front_end_source), Catch::Contains("qwen3-8b sharegpt vLLM c=8") &&
                                                      Catch::Contains("qwen3-14b random 128/4"));
    } else {
      CHECK_THAT(std::string(p.front_end_source), Catch::Contains("none fitted"));
    }
  }
  // vLLM 0.11 is the version the bundled set measured; nothing else has one yet.
  CHECK(find_engine_preset("vllm@0.11").front_end.any());
  CHECK_FALSE(find_engine_preset("vllm@0.12").front_end.any());
  CHECK_FALSE(find_engine_preset("sglang").front_end.any());
  CHECK_FALSE(find_engine_preset("trtllm").front_end.any());
}

TEST_CASE("the fit recovers a per-request intake from an all-at-once case's throughput") {
  BenchmarkCase c = read_benchmark_cases(kDir + "tiny_case.json").front();
  c.workload.max_concurrency = 0;
  c.role = CaseRole::kCalibration;
  c.calibrates = "frontend_request_ms";
  // Measured: 20 tokens in 4 x 75 ms of intake + 50 ms of steps (the closed form above, batch 0:
  // no stall case identifies one).
  c.measured = {};
  c.measured.output_throughput = 20 / (4 * 0.075 + 0.05);
  const std::map<std::string, Profile> profiles{{"golden-model", load_profile(kGoldenProfile)}};
  const StepTermFit fit = fit_step_terms({c}, profiles, "test");
  CHECK(fit.front_end.intake_request_ms == Approx(75).margin(0.01));
  CHECK(fit.front_end.intake_batch_ms == 0);
  CHECK_THAT(fit.front_end_source, Catch::Contains(c.name));

  SECTION("only an all-at-once case identifies it") {
    c.workload.max_concurrency = 2;
    CHECK_THROWS_WITH(fit_step_terms({c}, profiles, "test"),
                      Catch::Contains("needs an all-at-once case"));
  }
}
