// The serial front end (experiments/validate/front_end_server.hpp) and its use in the benchmark
// replay, against closed forms: a saturated serial server completes one job per cost, an idle one
// delays each job by exactly its cost, and a replay whose intake is slower than the engine lasts
// N x intake + one request's service (the golden profile: 10 ms steps, 5 steps per request).
#include "experiments/validate/front_end_server.hpp"

#include <catch2/catch.hpp>

#include "experiments/validate/benchmark_case.hpp"
#include "experiments/validate/benchmark_replay.hpp"
#include "profiles/profile_io.hpp"

using namespace sparksim;

namespace {
const std::string kDir = std::string(SPARKSIM_SOURCE_DIR) + "/tests/experiments/validate/";
const std::string kGoldenProfile =
    std::string(SPARKSIM_SOURCE_DIR) + "/tests/experiments/golden/two_requests/profile.json";

Profile with_front_end(double request_ms, double chunk_us) {
  Profile p = load_profile(kGoldenProfile);
  p.step_terms.present = true;
  p.step_terms.large_chunk_tokens = 512;
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

TEST_CASE("replay: an intake slower than the engine sets the duration, N x intake + service") {
  BenchmarkCase c = read_benchmark_cases(kDir + "tiny_case.json").front();
  c.workload.max_concurrency = 0;  // all 4 at t = 0
  c.engine_version = "vLLM v0.11.0";
  const SimulatedMetrics s = replay_case(c, with_front_end(100, 0));
  // Request i reaches the scheduler at (i + 1) x 100 ms and is alone there (service 50 ms). The
  // worker is FIFO: all four intakes were handed in at t = 0, so the chunks of requests 0-2 wait
  // behind them and leave at 400 ms together; request 3 streams at 410, 420, ... 450 ms.
  CHECK(s.duration_s == Approx(4 * 0.1 + 0.05));
  CHECK(*s.ttft_ms.mean == Approx((3 * 400 + 410) / 4.0));
  CHECK(*s.tpot_ms.mean == Approx((0 + 0 + 0 + 10) / 4.0));
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
