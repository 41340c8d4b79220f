// The serial front end (experiments/validate/front_end_server.hpp) and its use in the benchmark
// replay, against closed forms: a saturated serial server completes one job per cost, an idle one
// delays each job by exactly its cost, N requests handed in together are one intake batch
// (batch + N x request, released together), and a replay whose intake is slower than the engine
// lasts batch + N x intake + one request's service, with every chunk's time worked by hand (the
// golden profile: 10 ms steps, 5 steps per request). Also the step-term fit recovering a known
// per-request intake from a throughput computed in closed form.
#include "experiments/validate/front_end_server.hpp"

#include <catch2/catch.hpp>

#include "experiments/validate/benchmark_case.hpp"
#include "experiments/validate/benchmark_replay.hpp"
#include "experiments/validate/step_term_fit.hpp"
#include "profiles/profile_io.hpp"

using namespace sparksim;

namespace {
const std::string kDir = std::string(SPARKSIM_SOURCE_DIR) + "/tests/experiments/validate/";
const std::string kGoldenProfile =
    std::string(SPARKSIM_SOURCE_DIR) + "/tests/experiments/golden/two_requests/profile.json";

Profile with_front_end(double request_ms, double chunk_us, double batch_ms = 0) {
  Profile p = load_profile(kGoldenProfile);
  p.step_terms.present = true;
  p.step_terms.frontend_batch_ms = batch_ms;
  p.step_terms.frontend_request_ms = request_ms;
  p.step_terms.frontend_chunk_us = chunk_us;
  p.step_terms.frontend_source = "test";
  p.step_terms.frontend_engine = "vLLM";
  return p;
}
}  // namespace

TEST_CASE("a saturated serial front end completes one job per cost") {
  FrontEndServer s;
  const SimTime cost = seconds_to_sim_time(0.013);
  SimTime last = 0;
  for (int i = 0; i < 1000; ++i) last = s.serve(0, cost);
  // Throughput 1 / cost: 1000 jobs handed in at once finish at 1000 x 13 ms.
  CHECK(last == 1000 * cost);
  CHECK(1000.0 / sim_time_to_seconds(last) == Approx(1.0 / 0.013));
  CHECK(s.busy_time() == 1000 * cost);
}

TEST_CASE("an idle serial front end delays a job by its cost only, a busy one queues it") {
  FrontEndServer s;
  CHECK(s.serve(0, 10) == 10);
  CHECK(s.serve(25, 10) == 35);  // idle since 10: no wait
  CHECK(s.serve(30, 1) == 36);   // busy until 35: waits 5
  CHECK(s.jobs() == 3);
}

TEST_CASE("an intake batch is one job: batch + N x request, all released at its end") {
  FrontEndServer s;
  CHECK(s.serve_batch(0, 1000, 30, 13) == 30 + 1000 * 13);
  CHECK(s.serve(0, 2) == 30 + 13000 + 2);                // a chunk handed in meanwhile waits for it
  CHECK(s.serve_batch(20000, 1, 30, 13) == 20000 + 43);  // one request alone: batch + request
  CHECK(s.busy_time() == 13030 + 2 + 43);
}

TEST_CASE("replay: an intake slower than the engine sets the duration, N x intake + service") {
  BenchmarkCase c = read_benchmark_cases(kDir + "tiny_case.json").front();
  c.workload.max_concurrency = 0;  // all 4 at t = 0
  c.engine_version = "vLLM v0.11.0";
  const SimulatedMetrics s = replay_case(c, with_front_end(100, 0));
  // The four are handed in together: one intake batch of 4 x 100 ms, after which all four reach
  // the scheduler at 400 ms and run together: 5 steps of 10 ms, every chunk as its step ends.
  CHECK(s.duration_s == Approx(4 * 0.1 + 0.05));
  CHECK(*s.ttft_ms.mean == Approx(410));
  CHECK(*s.tpot_ms.mean == Approx(10));
  CHECK(s.frontend_busy_s == Approx(0.4));
  SECTION("another engine's benchmark does not get vLLM's front end") {
    c.engine_version = "SGLang v0.5.3";
    const SimulatedMetrics o = replay_case(c, with_front_end(100, 0));
    // All four at once on the engine: one prefill step of 40 tokens, then 4 batched decodes.
    CHECK(o.duration_s < 0.1);
    CHECK(o.frontend_busy_s == 0);
  }
}

TEST_CASE("replay: each streamed chunk costs the front end its time before the client sees it") {
  const BenchmarkCase c = read_benchmark_cases(kDir + "tiny_case.json").front();  // c = 1
  const SimulatedMetrics s = replay_case(c, with_front_end(0, 2000));
  // One request at a time, steps 10 ms apart: every chunk leaves 2 ms after its step. The next
  // request is sent at the engine's completion (50 ms) but its intake is queued behind the last
  // chunk (52 ms), as if sent when the client got it: each request takes 52 ms, and its first
  // chunk leaves 14 ms after it was sent (12 ms for the first, sent to an idle worker).
  CHECK(*s.ttft_ms.mean == Approx((12 + 3 * 14) / 4.0));
  CHECK(*s.tpot_ms.mean == Approx(10));
  CHECK(*s.itl_ms.p99 == Approx(10));
  CHECK(s.duration_s == Approx(4 * 0.052));
  CHECK(s.frontend_busy_s == Approx(20 * 0.002));
}

TEST_CASE("replay: N at t = 0 through batch a, N x request b, chunk c: every time by hand") {
  BenchmarkCase c = read_benchmark_cases(kDir + "tiny_case.json").front();
  c.workload.max_concurrency = 0;  // N = 4 at t = 0
  c.engine_version = "vLLM v0.11.0";
  // a = 30 ms per batch, b = 100 ms per request, c = 2 ms per chunk. The batch ends at
  // T = a + 4b = 430 ms; the engine then runs all four together, steps ending at T + 10k
  // (k = 1..5), each yielding one chunk per request. Four chunks take 8 ms < 10 ms, so the worker
  // is idle at every step end: request j's chunk of step k leaves at T + 10k + 2(j + 1).
  const SimulatedMetrics s = replay_case(c, with_front_end(100, 2000, 30));
  CHECK(*s.ttft_ms.mean == Approx((442 + 444 + 446 + 448) / 4.0));  // sent at t = 0
  // p99 interpolates linearly, as numpy (vLLM's benchmark) does: rank 0.99 x 3 = 2.97.
  CHECK(*s.ttft_ms.p99 == Approx(446 + 0.97 * 2));
  CHECK(*s.tpot_ms.mean == Approx(10));  // (T + 50 - (T + 10)) / 4 for every request
  CHECK(*s.itl_ms.p99 == Approx(10));
  CHECK(s.duration_s == Approx(0.488));  // the last chunk: T + 50 + 8
  CHECK(s.frontend_busy_s == Approx(0.430 + 20 * 0.002));

  SECTION("closed loop at c = 1: each request is a batch of its own, batch + request") {
    c.workload.max_concurrency = 1;
    const SimulatedMetrics one = replay_case(c, with_front_end(10, 0, 20));
    // Sent at the previous one's completion; 30 ms of intake, then 5 steps of 10 ms.
    CHECK(one.duration_s == Approx(4 * (0.030 + 0.050)));
    CHECK(*one.ttft_ms.mean == Approx(40));
  }
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
  CHECK(fit.terms.frontend_request_ms == Approx(75).margin(0.01));
  CHECK(fit.terms.frontend_batch_ms == 0);
  CHECK_THAT(fit.terms.frontend_source, Catch::Contains(c.name));

  SECTION("only an all-at-once case identifies it") {
    c.workload.max_concurrency = 2;
    CHECK_THROWS_WITH(fit_step_terms({c}, profiles, "test"),
                      Catch::Contains("needs an all-at-once case"));
  }
}

TEST_CASE("the serial front end applies to the server software it was measured on") {
  StepTerms t;
  t.frontend_engine = "vLLM";
  CHECK(serial_front_end_applies(t, "vLLM v0.11.0"));
  CHECK(serial_front_end_applies(t, "vllm v0.6"));
  CHECK(serial_front_end_applies(t, ""));  // a vllm bench serve result names no version
  CHECK_FALSE(serial_front_end_applies(t, "SGLang v0.5.3.post3"));
  CHECK_FALSE(serial_front_end_applies(t, "TRT-LLM v1.2.0rc1"));
  t.frontend_engine.clear();
  CHECK(serial_front_end_applies(t, "SGLang v0.5.3.post3"));
}
