// The windowed cluster loop against the one-thread loop on random fleets mixing every feature of
// windowed_cluster_features_test.cpp, and when a run throws: the first error in simulated time,
// after the completions before it, as the one-thread loop stops.
#include <catch2/catch.hpp>

#include "tests/cluster/windowed_fleet_rig.hpp"

using namespace sparksim;
using namespace sparksim::windowed_rig;

// Random fleets with the features above mixed (2-9 replicas; equal, unequal or batch-dependent
// step times; either prefill mode; front end or none; tight or ample KV; calibrated, shared or
// not, or Bernoulli acceptance; every router; 2-4 threads), arrivals on the steps' grid. Over the
// sweep, the ties, rejections and preemptions the scenarios above target must all occur.
TEST_CASE("windowed loop on random fleets mixing every feature") {
  int ties = 0, fleets_with_rejections = 0, fleets_with_preemptions = 0;
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    Lcg lcg(seed * 7919);
    Fleet fleet;
    fleet.replicas = 2 + lcg.below(8);
    static constexpr const char* kRouters[] = {"round-robin", "least-loaded", "kv-aware"};
    fleet.router = kRouters[lcg.below(std::size(kRouters))];
    const std::uint64_t steps = lcg.below(3);
    if (steps == 1) fleet.profiles = {testing::linear_step_profile(0, 1000, 1)};
    if (steps == 2) {
      fleet.profiles = {testing::constant_step_profile(10'000),
                        testing::constant_step_profile(15'000),
                        testing::linear_step_profile(2000, 500, 1)};
    }
    if (lcg.below(2)) fleet.config.prefill_mode = PrefillMode::kSeparate;
    if (lcg.below(2)) {
      fleet.config.front_end =
          FrontEndCosts{.latency_ms = static_cast<double>(lcg.below(3)),
                        .intake_batch_ms = static_cast<double>(lcg.below(3)),
                        .intake_request_ms = 0.5 * static_cast<double>(lcg.below(4)),
                        .chunk_us = 250.0 * static_cast<double>(lcg.below(3))};
    }
    fleet.config.kv_capacity_tokens = lcg.below(2) ? 600 : 20'000;
    fleet.config.max_running = 1 + static_cast<std::int64_t>(lcg.below(6));
    if (lcg.below(2)) {
      fleet.config.drafter = parse_drafter("eagle3-4");
      fleet.policy = "static:k=3";
      fleet.acceptance = "calibrated";
      fleet.share_acceptance = lcg.below(2) != 0;
    } else {
      fleet.acceptance = lcg.below(2) ? "bernoulli:p=1" : "bernoulli:p=0.5";
    }
    std::vector<RequestSpec> requests;
    SimTime arrival = 0;
    const SimTime grid = (steps == 1 ? 1 : 5) * kMs;
    const int count = 50 + static_cast<int>(lcg.below(250));
    for (int i = 0; i < count; ++i) {
      const std::uint64_t gap = lcg.below(10);  // 40% at the same instant, 40% close, 20% far
      arrival += grid * static_cast<SimTime>(gap < 4 ? 0 : gap < 8 ? lcg.below(4) : lcg.below(60));
      requests.push_back(request(arrival, 1 + static_cast<std::int64_t>(lcg.below(600)),
                                 1 + static_cast<std::int64_t>(lcg.below(40))));
    }
    const std::size_t threads = 2 + lcg.below(3);
    INFO("seed " << seed << ": " << fleet.replicas << " replicas, " << fleet.router << ", "
                 << threads << " threads");
    const Outcome reference = run_fleet(fleet, requests, 1);
    ties += completion_ties(reference.completions).between_replicas;
    fleets_with_rejections += reference.stats.requests_rejected_kv > 0;
    int preemptions = 0;
    for (const Completion& c : reference.completions) preemptions += c.preemptions;
    fleets_with_preemptions += preemptions > 0;
    check_windowed_equals_at(fleet, requests, reference, threads);
  }
  INFO(ties << " ties between replicas; " << fleets_with_rejections << " fleets with rejections, "
            << fleets_with_preemptions << " with preemptions");
  CHECK(ties >= 1000);
  CHECK(fleets_with_rejections >= 20);
  CHECK(fleets_with_preemptions >= 20);
}

// A step too long for the simulator throws (TimeModel: more than 10^6 s). The one-thread loop
// stops at the first such step in simulated time, after handing the observer every completion
// before it; the windowed loop should stop with the same error and the same completions. Steps of
// 250 s a token, one request running at a time (oracle worked by hand):
//   replica 0: A0 (1 + 3 tokens) steps 0-250-500-750 s, done at 750; then A2's 5000-token prompt,
//              a 1.25e6 s step: throws at 750 s.
//   replica 1: A1 (1 + 2 tokens) steps 0-250-500 s, done at 500; then A3's 6000-token prompt,
//              a 1.5e6 s step: throws at 500 s, first. A far arrival keeps both in one window.
// (74e3ade's windowed loop rethrew the error of the lowest-numbered group that threw, replica 0's
// at 750 s, and dropped the completions of the window it was in; fixed since.)
TEST_CASE("windowed loop stops with the one-thread loop's first error and completions") {
  Fleet fleet;
  fleet.replicas = 2;
  fleet.profiles = {testing::linear_step_profile(0, 250e6, 1)};
  fleet.config.drafter = parse_drafter("none");
  fleet.config.max_running = 1;
  fleet.config.kv_capacity_tokens = 1'000'000;
  fleet.policy = "static:k=0";
  fleet.acceptance = "calibrated";
  const std::vector<RequestSpec> requests = {request(0, 1, 3), request(0, 1, 2),
                                             request(0, 5000, 1), request(0, 6000, 1),
                                             request(100'000 * kNanosPerSecond, 1, 1)};
  for (const std::size_t threads : {1, 2}) {
    INFO(threads << " threads");
    Outcome out;
    std::string error;
    try {
      run_fleet_into(fleet, requests, threads, out);
    } catch (const std::overflow_error& e) {
      error = e.what();
    }
    CHECK_THAT(error, Catch::Matchers::StartsWith("time model: a step of 1500000.0"));
    // The one completion before the first error: A1 on replica 1 at 500 s.
    REQUIRE(out.completions.size() == 1);
    CHECK(out.completions[0].id == 1);
    CHECK(out.completions[0].replica == 1);
    CHECK(out.completions[0].now == 500 * kNanosPerSecond);
  }
}
