// The serial front end (sim/front_end_server.hpp, sim/front_end.hpp) against closed forms and
// hand-worked queues: a saturated serial server completes one job per cost, an idle one delays
// each job by exactly its cost, N requests handed in together are one intake batch
// (batch + N x request, released together), a request handed in at another instant or after
// another job opens a batch of its own, and the intake's ready time adds the tokenising cost and
// the latency.
#include "sim/front_end_server.hpp"

#include <catch2/catch.hpp>

#include "sim/front_end.hpp"

using namespace sparksim;

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

TEST_CASE("requests handed in at one instant join one batch, not across instants or jobs") {
  FrontEndServer s;
  // Three at t = 100 with batch 30, request 13: one job, 30 + 3 x 13, all leaving at 169.
  const auto a = s.serve_batch_member(100, 30, 13);
  CHECK(a.done == 143);
  CHECK_FALSE(a.joined);
  const auto b = s.serve_batch_member(100, 30, 13);
  CHECK(b.done == 156);
  CHECK(b.joined);
  const auto c = s.serve_batch_member(100, 30, 13);
  CHECK(c.done == 169);
  CHECK(c.joined);
  CHECK(s.jobs() == 1);  // one batch
  // A chunk served after them closes the batch: the next request at t = 100 queues behind it.
  CHECK(s.serve(100, 5) == 174);
  const auto d = s.serve_batch_member(100, 30, 13);
  CHECK_FALSE(d.joined);
  CHECK(d.done == 174 + 43);
  // Another instant: a batch of its own, after the worker is free (217) .
  const auto e = s.serve_batch_member(150, 30, 13);
  CHECK_FALSE(e.joined);
  CHECK(e.done == 217 + 43);
  CHECK(s.busy_time() == 3 * 13 + 30 + 5 + 43 + 43);
}

TEST_CASE("front end: ready = batch + request + prompt tokens x tokenising, + latency") {
  // 2 ms per batch, 1 ms per request, 0.5 us per prompt token, 3 ms of latency, 40 us per chunk.
  FrontEnd f(FrontEndCosts{.latency_ms = 3,
                           .intake_batch_ms = 2,
                           .intake_request_ms = 1,
                           .intake_prompt_token_us = 0.5,
                           .chunk_us = 40});
  CHECK(f.active());
  const SimTime ms = 1'000'000;
  // 1000 prompt tokens tokenise in 0.5 ms: the worker is busy 0 .. 3.5 ms; the scheduler sees it
  // 3 ms later.
  const FrontEnd::Intake a = f.take_in(0, 1000);
  CHECK(a.ready == 6 * ms + ms / 2);
  CHECK_FALSE(a.joined);
  // A second at t = 0 joins: 1 ms + 10 tokens x 0.5 us more for the batch, which both leave.
  const FrontEnd::Intake b = f.take_in(0, 10);
  CHECK(b.joined);
  CHECK(b.ready == 6 * ms + ms / 2 + ms + 5'000);
  // A chunk of a step ending at 1 ms waits for the batch (busy until 4.505 ms), then 40 us.
  CHECK(f.deliver(ms) == 4 * ms + ms / 2 + 5'000 + 40'000);
  // An idle worker delivers 40 us after the step.
  CHECK(f.deliver(10 * ms) == 10 * ms + 40'000);
  CHECK(f.server().busy_time() == 3 * ms + ms / 2 + ms + 5'000 + 2 * 40'000);
}

TEST_CASE("front end: all costs zero is inactive, and bounds name every term out of range") {
  CHECK_FALSE(FrontEnd(FrontEndCosts{}).active());
  CHECK(FrontEnd(FrontEndCosts{.chunk_us = 1}).active());
  CHECK(front_end_costs_out_of_bounds(FrontEndCosts{.latency_ms = 1e5, .chunk_us = 1e6}).empty());
  const std::string bad = front_end_costs_out_of_bounds(
      FrontEndCosts{.intake_request_ms = -1, .intake_prompt_token_us = 2e3});
  CHECK_THAT(bad, Catch::Contains("intake_request_ms = -1 is outside [0, 10000]") &&
                      Catch::Contains("intake_prompt_token_us = 2000 is outside [0, 1000]"));
  CHECK_THAT(bad, !Catch::Contains("latency_ms"));
}
