// The front end inside the engine (sim/engine.hpp, EngineConfig::front_end), every time worked by
// hand on 10 ms steps (a constant-step profile, no drafter): a request reaches the scheduler when
// its intake batch ends plus the latency, an engine holding nothing else waits for it, chunks are
// delivered through the same serial worker (an intake in progress holds them back), and the
// client-visible times (TTFT, TPOT, E2E, the run's end) are the delivery times. Costs of zero
// leave every timestamp where it was.
#include <catch2/catch.hpp>

#include "policies/policy_registry.hpp"
#include "profiles/drafter.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/engine.hpp"
#include "sim/simulation.hpp"
#include "test_profiles.hpp"

using namespace sparksim;

namespace {

constexpr SimTime kMs = 1'000'000;

struct FrontEndRig {
  Profile profile = testing::constant_step_profile(10'000);  // every step 10 ms
  TimeModel time_model{profile};
  SpsTable sps{profile.sps, 4096};
  std::unique_ptr<VerificationPolicy> policy;
  std::unique_ptr<AcceptanceModel> acceptance;
  MetricsCollector metrics{nullptr};
  std::unique_ptr<Engine> engine;
  std::vector<Request> done;

  explicit FrontEndRig(const FrontEndCosts& costs) {
    EngineConfig c;
    c.drafter = parse_drafter("none");
    c.kv_capacity_tokens = 1'000'000;
    c.front_end = costs;
    policy = make_policy(NamedSpec::parse("static", "--policy"), PolicyContext{c.drafter.gamma});
    acceptance = make_acceptance_model(NamedSpec::parse("calibrated", "--acceptance"),
                                       AcceptanceContext{c.drafter, "qwen3-8b", 1});
    engine = std::make_unique<Engine>(c, time_model, sps, *acceptance, *policy, metrics);
  }
  SimulationStats run(const std::vector<RequestSpec>& requests) {
    OpenLoopWorkload w(requests);
    return run_simulation(*engine, w, [this](const Request& r, SimTime) { done.push_back(r); });
  }
  const Request& request(std::uint64_t id) const {
    for (const Request& r : done) {
      if (r.id == id) return r;
    }
    FAIL("request " << id << " not done");
    return done.front();
  }
};

RequestSpec spec(SimTime arrival, std::int64_t prompt, std::int64_t output) {
  RequestSpec r;
  r.arrival = arrival;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  return r;
}

}  // namespace

TEST_CASE("front end, one request: intake, wait, then every chunk 0.5 ms after its step") {
  // Batch 1 ms + request 4 ms of intake, 2 ms of latency, 0.5 ms per chunk. Sent at 0: taken in
  // 0..5 ms, seen at 7 ms; prefill 7..17 (first token delivered 17.5), decodes 17..27 and 27..37
  // (delivered 27.5, 37.5).
  FrontEndRig rig(FrontEndCosts{
      .latency_ms = 2, .intake_batch_ms = 1, .intake_request_ms = 4, .chunk_us = 500});
  const SimulationStats stats = rig.run({spec(0, 10, 3)});
  const Request& r = rig.request(0);
  CHECK(r.arrival == 0);
  CHECK(r.first_admitted == 7 * kMs);
  CHECK(r.first_token == 17 * kMs + kMs / 2);
  CHECK(r.done == 37 * kMs + kMs / 2);
  CHECK(rig.metrics.ttft_ms().mean == Approx(17.5));
  CHECK(rig.metrics.tpot_ms().mean == Approx(10));  // (37.5 - 17.5) / 2
  CHECK(rig.metrics.e2e_s().mean == Approx(0.0375));
  CHECK(rig.metrics.queue_ms().mean == Approx(7));
  CHECK(rig.metrics.counters().steps == 3);     // the wait for the intake is no step
  CHECK(stats.end_time == 37 * kMs + kMs / 2);  // the last chunk, after the last step
  CHECK(rig.engine->front_end().server().busy_time() == 5 * kMs + 3 * kMs / 2);
}

TEST_CASE("front end: two sent together are one batch, a later one queues behind it") {
  // Batch 1 ms, request 4 ms, no latency, no chunk cost. Requests 0 and 1 at t = 0: one batch,
  // 1 + 2 x 4 = 9 ms, both seen at 9. Request 2 at 1 ms finds the worker busy until 9: its batch
  // is 9..14. Steps: 9..19 prefills 0 and 1; 2 is admitted at the next step start, 19: 19..29
  // decodes 0 and 1 (done) and prefills 2; 29..39 decodes 2.
  FrontEndRig rig(FrontEndCosts{.intake_batch_ms = 1, .intake_request_ms = 4});
  rig.run({spec(0, 10, 2), spec(0, 10, 2), spec(1 * kMs, 10, 2)});
  CHECK(rig.request(0).first_token == 19 * kMs);
  CHECK(rig.request(1).first_token == 19 * kMs);
  CHECK(rig.request(0).done == 29 * kMs);
  CHECK(rig.request(2).first_admitted == 19 * kMs);
  CHECK(rig.request(2).first_token == 29 * kMs);
  CHECK(rig.request(2).done == 39 * kMs);
  CHECK(rig.metrics.ttft_ms().mean == Approx((19 + 19 + 28) / 3.0));  // request 2 sent at 1 ms
  CHECK(rig.engine->front_end().server().busy_time() == 14 * kMs);    // two batches: 9 + 5 ms
}

TEST_CASE("front end: a request being taken in holds back the chunks streaming meanwhile") {
  // Request 5 ms of intake, no chunk cost. A at 0: seen at 5; steps 5..15 (prefill), 15..25,
  // 25..35. B sent at 24 ms is taken in 24..29, so A's chunk of the step ending at 25 leaves at 29:
  // A's tokens reach the client at 15, 29, 35 (gaps 14 and 6). B, seen at 29, is admitted at the
  // next step start (35, when A is done): prefill 35..45.
  FrontEndRig rig(FrontEndCosts{.intake_request_ms = 5});
  std::vector<SimTime> a_chunks;
  rig.engine->set_delivery_observer([&](const Request& r, SimTime at) {
    if (r.id == 0) a_chunks.push_back(at);
  });
  rig.run({spec(0, 10, 3), spec(24 * kMs, 10, 2)});
  CHECK(a_chunks == std::vector<SimTime>{15 * kMs, 29 * kMs, 35 * kMs});
  const Request& a = rig.request(0);
  CHECK(a.first_token == 15 * kMs);
  CHECK(a.done == 35 * kMs);
  const Request& b = rig.request(1);
  CHECK(b.first_admitted == 35 * kMs);
  CHECK(b.first_token == 45 * kMs);
  CHECK(b.first_token - b.arrival == 21 * kMs);
}

TEST_CASE("front end: costs of zero leave every time as without one") {
  // No front end: requests are seen as they arrive. Request 0 (10 / 3) prefills 0..10; requests 1
  // (20 / 4) and 2 (5 / 1), sent at 3 ms, are admitted at 10: 10..20 decodes 0 and prefills 1 and
  // 2 (2 done at 20); 0 is done at 30, 1 at 50.
  FrontEndRig rig(FrontEndCosts{});
  CHECK_FALSE(rig.engine->front_end().active());
  const SimulationStats stats =
      rig.run({spec(0, 10, 3), spec(3 * kMs, 20, 4), spec(3 * kMs, 5, 1)});
  CHECK(rig.request(0).first_token == 10 * kMs);
  CHECK(rig.request(1).first_admitted == 10 * kMs);
  CHECK(rig.request(2).done == 20 * kMs);
  CHECK(rig.request(0).done == 30 * kMs);
  CHECK(rig.request(1).done == 50 * kMs);
  CHECK(stats.end_time == 50 * kMs);
  CHECK(rig.engine->front_end().server().jobs() == 0);
}
