// The windowed cluster loop against its reference, the one-thread loop, on the engine features
// windowed_cluster_test.cpp leaves out: a separate prefill lane (two lanes of one replica ending
// at one instant, with equal or different starts), front-end intake waits and streaming, KV
// rejections and preemptions, one calibrated acceptance model shared by every replica (as the
// cluster command shares it), and arrivals piled on a few instants. Each scenario first checks on
// the one-thread run that it produces what it is there for (ties between replicas, preemptions,
// ...), then that 2, 3 and 4 threads give the same completions (every field the outputs read), the
// same step sequence on every replica and the same ClusterStats.
#include <catch2/catch.hpp>

#include "tests/cluster/windowed_fleet_rig.hpp"

using namespace sparksim;
using namespace sparksim::windowed_rig;

// Step time = batch tokens × 1 ms (a linear profile through the origin), prompts of a few tokens
// arriving on the millisecond grid: prefill steps (P ms) and decode steps (2 ms per request with
// mtp1 at k = 1) of one replica keep ending together, sometimes started together (one start, the
// main lane's end pushed first), sometimes not (the earlier start's end first).
TEST_CASE("windowed loop with a separate prefill lane: both lanes ending at one instant") {
  Fleet fleet;
  fleet.profiles = {testing::linear_step_profile(0, 1000, 1)};
  fleet.config.prefill_mode = PrefillMode::kSeparate;
  fleet.config.max_running = 6;
  fleet.acceptance = "bernoulli:p=0.6";
  Lcg lcg(2026);
  std::vector<RequestSpec> requests;
  SimTime arrival = 0;
  for (int i = 0; i < 500; ++i) {
    arrival += static_cast<SimTime>(lcg.below(3)) * kMs;  // a third of them share an instant
    // Even prompts, as a decode step lasts an even number of milliseconds. Four in ten want one
    // token: they complete at their prefill step's end, on the prefill lane, so both lanes of a
    // replica complete requests.
    const std::int64_t output = lcg.below(10) < 4 ? 1 : 2 + static_cast<std::int64_t>(lcg.below(6));
    requests.push_back(request(arrival, 2 + 2 * static_cast<std::int64_t>(lcg.below(4)), output));
  }
  for (const char* router : {"round-robin", "least-loaded", "kv-aware"}) {
    for (const std::size_t replicas : {3, 5}) {
      fleet.router = router;
      fleet.replicas = replicas;
      INFO(router << ", " << replicas << " replicas");
      const Outcome reference = run_fleet(fleet, requests, 1);
      REQUIRE(reference.completions.size() == requests.size());
      // Both lanes of one replica ending at one instant: from one start (then the main lane's
      // end was pushed first), and from two (the earlier start's end first).
      std::vector<std::map<SimTime, SimTime>> two_lane_ends(replicas);  // end -> start, if one
      int same_start = 0, different_starts = 0;
      for (std::size_t r = 0; r < replicas; ++r) {
        std::map<SimTime, std::vector<const StepSeen*>> by_end;
        for (const StepSeen& s : reference.steps[r]) by_end[s.end].push_back(&s);
        for (const auto& [end, ending] : by_end) {
          if (ending.size() != 2) continue;
          REQUIRE(ending[0]->prefill_lane() != ending[1]->prefill_lane());
          ++(ending[0]->start == ending[1]->start ? same_start : different_starts);
          if (ending[0]->start == ending[1]->start) two_lane_ends[r][end] = ending[0]->start;
        }
      }
      // Where the lane decides the order: a replica completed requests on both lanes of one
      // start at an instant where another replica completed one too (a request that never
      // decoded finished on the prefill lane).
      std::map<SimTime, std::map<std::size_t, std::pair<int, int>>> done_by_lane;
      for (const Completion& c : reference.completions) {
        auto& [prefill, main] = done_by_lane[c.now][c.replica];
        ++(c.decode_steps == 0 ? prefill : main);
      }
      int lane_decides = 0;
      for (const auto& [now, by_replica] : done_by_lane) {
        if (by_replica.size() < 2) continue;
        for (const auto& [r, done] : by_replica) {
          lane_decides += done.first > 0 && done.second > 0 && two_lane_ends[r].contains(now);
        }
      }
      const Ties ties = completion_ties(reference.completions);
      INFO(same_start << " two-lane ends from one start, " << different_starts << " from two; "
                      << lane_decides << " where the lane decides; " << ties.between_replicas
                      << " ties between replicas, " << ties.against_replica_order
                      << " against replica order");
      CHECK(same_start >= 5);
      CHECK(different_starts >= 5);
      CHECK(lane_decides >= 1);
      CHECK(ties.between_replicas >= 10);
      CHECK(ties.against_replica_order >= 2);
      check_windowed_equals(fleet, requests, reference);
    }
  }
}

// 10 ms steps and an API server that takes 1 ms per intake batch plus 3 ms per request, 2 ms of
// latency and 0.5 ms per streamed chunk: an idle replica waits for its intake (an intake-wait
// "step"), requests handed in together form one batch, and every chunk reaches the client after
// its step ends (done > the completion's instant).
TEST_CASE("windowed loop with front-end costs: intake waits and streaming") {
  Fleet fleet;
  fleet.config.front_end =
      FrontEndCosts{.latency_ms = 2, .intake_batch_ms = 1, .intake_request_ms = 3, .chunk_us = 500};
  fleet.acceptance = "bernoulli:p=0.8";
  Lcg lcg(35);
  static constexpr SimTime kGapsMs[] = {0, 0, 0, 5, 10, 20, 60, 300};
  std::vector<RequestSpec> requests;
  SimTime arrival = 0;
  for (int i = 0; i < 500; ++i) {
    arrival += kGapsMs[lcg.below(std::size(kGapsMs))] * kMs;
    requests.push_back(request(arrival, 50 + 50 * static_cast<std::int64_t>(lcg.below(3)),
                               3 + static_cast<std::int64_t>(lcg.below(30))));
  }
  for (const char* router : {"round-robin", "least-loaded", "kv-aware"}) {
    for (const std::size_t replicas : {3, 6}) {
      fleet.router = router;
      fleet.replicas = replicas;
      INFO(router << ", " << replicas << " replicas");
      const Outcome reference = run_fleet(fleet, requests, 1);
      REQUIRE(reference.completions.size() == requests.size());
      // Intake waits: a step that starts neither at an arrival nor at the end of one of its
      // replica's steps was started by the end of an intake wait (which no step observer sees).
      std::set<SimTime> arrivals;
      for (const RequestSpec& r : requests) arrivals.insert(r.arrival);
      int after_intake_wait = 0;
      for (const std::vector<StepSeen>& steps : reference.steps) {
        std::set<SimTime> ends;
        for (const StepSeen& s : steps) ends.insert(s.end);
        for (const StepSeen& s : steps)
          after_intake_wait += !ends.contains(s.start) && !arrivals.contains(s.start);
      }
      // Every request waits at least 1 + 3 + 2 ms for its intake, and every chunk reaches the
      // client after the step that made it.
      int streamed = 0;
      SimTime last_completion = 0;
      for (const Completion& c : reference.completions) {
        CHECK(c.first_admitted - c.arrival >= 6 * kMs);
        if (c.done > c.now) ++streamed;
        last_completion = std::max(last_completion, c.now);
      }
      const Ties ties = completion_ties(reference.completions);
      INFO(after_intake_wait << " steps after an intake wait, " << ties.between_replicas
                             << " ties between replicas");
      CHECK(after_intake_wait >= 20);
      CHECK(streamed == static_cast<int>(reference.completions.size()));
      CHECK(ties.between_replicas >= 10);
      CHECK(ties.against_replica_order >= 1);
      // The run ends when the last chunk is streamed, after the last step.
      CHECK(reference.stats.end_time > last_completion);
      check_windowed_equals(fleet, requests, reference);
    }
  }
}

// KV of 1,000 tokens a replica: a request needs prompt + output + γ + 1 = prompt + output + 2, so
// those over 998 are rejected at submission, and the rest, admitted on their prompt, outgrow the
// cache as they decode and are preempted (and recomputed).
TEST_CASE("windowed loop with KV rejections and preemptions") {
  Fleet fleet;
  fleet.config.kv_capacity_tokens = 1'000;
  fleet.config.max_running = 8;
  fleet.acceptance = "bernoulli:p=0.7";
  Lcg lcg(404);
  static constexpr SimTime kGapsMs[] = {0, 0, 10, 10, 20, 40};
  std::vector<RequestSpec> requests;
  SimTime arrival = 0;
  for (int i = 0; i < 500; ++i) {
    arrival += kGapsMs[lcg.below(std::size(kGapsMs))] * kMs;
    requests.push_back(request(arrival, 50 + 50 * static_cast<std::int64_t>(lcg.below(8)),
                               20 + 50 * static_cast<std::int64_t>(lcg.below(15))));
  }
  int never_fit = 0;
  for (const RequestSpec& r : requests) never_fit += r.prompt_tokens + r.output_tokens + 2 > 1'000;
  REQUIRE(never_fit >= 10);
  for (const char* router : {"round-robin", "least-loaded", "kv-aware"}) {
    for (const std::size_t replicas : {4, 7}) {
      fleet.router = router;
      fleet.replicas = replicas;
      INFO(router << ", " << replicas << " replicas");
      const Outcome reference = run_fleet(fleet, requests, 1);
      // Whatever the router, exactly the requests that can never fit are rejected.
      CHECK(reference.stats.requests_rejected_kv == never_fit);
      REQUIRE(reference.completions.size() == requests.size() - never_fit);
      std::int64_t preemptions = 0, recomputed = 0;
      for (const Completion& c : reference.completions) {
        preemptions += c.preemptions;
        if (c.prefill_tokens_computed > requests[c.id].prompt_tokens) ++recomputed;
      }
      const Ties ties = completion_ties(reference.completions);
      INFO(preemptions << " preemptions, " << recomputed << " requests recomputed, "
                       << ties.between_replicas << " ties between replicas");
      CHECK(preemptions >= 20);
      CHECK(recomputed >= 10);
      CHECK(ties.between_replicas >= 5);
      check_windowed_equals(fleet, requests, reference);
    }
  }
}

// One calibrated model serves every replica (what the cluster command does with a shareable
// model), drawn from by 2-4 threads at once. Its draws are a pure function of (seed, request,
// step), so one shared model gives what one model per replica gives; the threads must not change
// either.
TEST_CASE("windowed loop with one calibrated acceptance model shared by every replica") {
  Fleet fleet;
  fleet.config.drafter = parse_drafter("eagle3-4");
  fleet.policy = "static:k=3";
  fleet.acceptance = "calibrated";
  fleet.replicas = 6;
  Lcg lcg(9386264);
  static constexpr SimTime kGapsMs[] = {0, 0, 10, 20, 30, 100};
  std::vector<RequestSpec> requests;
  SimTime arrival = 0;
  for (int i = 0; i < 400; ++i) {
    arrival += kGapsMs[lcg.below(std::size(kGapsMs))] * kMs;
    RequestSpec r = request(arrival, 100 + 100 * static_cast<std::int64_t>(lcg.below(3)),
                            10 + static_cast<std::int64_t>(lcg.below(60)));
    r.domain = static_cast<Domain>(lcg.below(kDomainCount));
    requests.push_back(r);
  }
  for (const char* router : {"round-robin", "least-loaded", "kv-aware"}) {
    fleet.router = router;
    INFO(router);
    fleet.share_acceptance = false;
    const Outcome own_models = run_fleet(fleet, requests, 1);
    fleet.share_acceptance = true;
    const Outcome reference = run_fleet(fleet, requests, 1);
    REQUIRE(reference.completions.size() == requests.size());
    // The model really decides: drafts are rejected, not all and not none.
    std::int64_t verified = 0, accepted = 0;
    for (const Completion& c : reference.completions) {
      verified += c.drafts_verified;
      accepted += c.drafts_accepted;
    }
    const Ties ties = completion_ties(reference.completions);
    INFO(accepted << " of " << verified << " drafts accepted; " << ties.between_replicas
                  << " ties between replicas");
    CHECK(accepted > verified / 10);
    CHECK(accepted < verified * 9 / 10);
    CHECK(ties.between_replicas >= 10);
    check_same_completions(own_models.completions, reference.completions);
    check_windowed_equals(fleet, requests, reference);
  }
}

// 300 requests on four instants (75 each, the last two 10 ms apart, one step): 75 windows end at
// each instant, 74 of them running no event (the replicas' starts wait for the last arrival), the
// router places 75 requests against loads that only submissions move, and the
// replicas start together. With the front end, each instant's requests are one intake batch.
TEST_CASE("windowed loop with many arrivals at a few instants") {
  static constexpr SimTime kInstantsMs[] = {0, 50, 700, 710};
  Lcg lcg(75);
  std::vector<RequestSpec> requests;
  for (const SimTime at : kInstantsMs) {
    for (int i = 0; i < 75; ++i) {
      requests.push_back(request(at * kMs, 100 + 100 * static_cast<std::int64_t>(lcg.below(3)),
                                 4 + 6 * static_cast<std::int64_t>(lcg.below(5))));
    }
  }
  for (const bool front_end : {false, true}) {
    Fleet fleet;
    fleet.replicas = 7;
    fleet.config.max_running = 6;
    if (front_end) {
      fleet.config.front_end = FrontEndCosts{
          .latency_ms = 1, .intake_batch_ms = 2, .intake_request_ms = 0.5, .chunk_us = 100};
    }
    for (const char* router : {"round-robin", "least-loaded", "kv-aware"}) {
      fleet.router = router;
      INFO(router << (front_end ? ", front end" : ""));
      const Outcome reference = run_fleet(fleet, requests, 1);
      REQUIRE(reference.completions.size() == requests.size());
      // Every replica got work at every instant (75 requests over 7 replicas).
      std::set<std::pair<std::size_t, SimTime>> served;
      for (const Completion& c : reference.completions) served.emplace(c.replica, c.arrival);
      CHECK(served.size() == fleet.replicas * std::size(kInstantsMs));
      const Ties ties = completion_ties(reference.completions);
      INFO(ties.between_replicas << " ties between replicas, " << ties.against_replica_order
                                 << " against replica order");
      CHECK(ties.between_replicas >= 50);
      // Round-robin's turn moves on by 75 mod 7 per instant; a preference router starts from the
      // least loaded replica, often the lowest.
      if (std::string(router) == "round-robin") CHECK(ties.against_replica_order >= 2);
      check_windowed_equals(fleet, requests, reference);
    }
  }
}
