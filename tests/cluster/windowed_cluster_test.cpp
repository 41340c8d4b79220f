// The windowed cluster loop (replica groups on threads between arrivals) against its reference,
// the one-thread loop: the same completions in the same order, at the same times, on the same
// replicas, and the same statistics. The hard part is the order of completions that land at the
// same nanosecond on different replicas, so the main case makes many: constant 10 ms steps,
// every draft accepted, few distinct request shapes arriving in bursts at multiples of 10 ms, so
// replicas run in lockstep and finish together; it checks that such ties happened and that their
// order is neither replica order nor group order. InstantOrder's rule is also worked by hand.
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "policies/policy_registry.hpp"
#include "profiles/time_model.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/cluster/cluster_simulation.hpp"
#include "sim/cluster/instant_order.hpp"
#include "sim/cluster/window_log.hpp"
#include "sim/cluster/windowed_cluster_loop.hpp"
#include "tests/cluster/windowed_fleet_rig.hpp"
#include "tests/sim/test_profiles.hpp"

using namespace sparksim;

namespace {

constexpr SimTime kMs = 1'000'000;

struct Completion {
  std::uint64_t id;
  std::size_t replica;
  SimTime now;
  SimTime first_token;
  std::int64_t generated;
  bool operator==(const Completion&) const = default;
};

struct Outcome {
  std::vector<Completion> completions;
  ClusterStats stats;
};

// `replicas` hand-timed replicas (constant 10 ms steps; mtp1 with every draft accepted) behind
// `router`, on `threads` threads.
Outcome run_fleet(std::size_t replicas, const std::string& router,
                  const std::vector<RequestSpec>& requests, std::size_t threads) {
  const Profile profile = testing::constant_step_profile(10'000);
  const TimeModel tm(profile);
  const SpsTable sps(profile.sps, 4096);
  EngineConfig config;
  config.drafter = parse_drafter("mtp1");
  config.kv_capacity_tokens = 20'000;
  config.max_running = 4;  // queues form: admission order matters too
  std::vector<std::unique_ptr<VerificationPolicy>> policies;
  std::vector<std::unique_ptr<AcceptanceModel>> models;
  std::vector<std::unique_ptr<MetricsCollector>> metrics;
  std::vector<std::unique_ptr<Engine>> engines;
  std::vector<ClusterReplica> wired;
  for (std::size_t i = 0; i < replicas; ++i) {
    policies.push_back(make_policy(NamedSpec::parse("static:k=1", "--policy"),
                                   PolicyContext{config.drafter.gamma}));
    models.push_back(make_acceptance_model(NamedSpec::parse("bernoulli:p=1", "--acceptance"),
                                           AcceptanceContext{config.drafter, "qwen3-8b", 1}));
    metrics.push_back(std::make_unique<MetricsCollector>(nullptr));
    engines.push_back(std::make_unique<Engine>(config, tm, sps, *models.back(), *policies.back(),
                                               *metrics.back()));
    wired.push_back(ClusterReplica{engines.back().get(), ReplicaRole::kColocated});
  }
  auto arrivals = make_router(NamedSpec::parse(router, "--router"));
  ClusterWiring wiring;
  wiring.replicas = wired;
  wiring.arrival_router = arrivals.get();
  OpenLoopWorkload workload(requests);
  Outcome out;
  out.stats = run_cluster_simulation(
      wiring, workload,
      [&](const Request& r, std::size_t replica, SimTime now) {
        out.completions.push_back(Completion{r.id, replica, now, r.first_token, r.generated});
      },
      threads);
  return out;
}

// Requests at multiples of 10 ms (the step time), often several at one instant, of a few shapes,
// with gaps that let replicas drain and restart in a new order: lockstep galore. The sequence
// is a fixed linear congruential one, not a library's, so it cannot change under the test.
std::vector<RequestSpec> bursty_requests(int count) {
  static constexpr SimTime kGapsMs[] = {0, 0, 0, 10, 20, 50, 250};
  static constexpr std::int64_t kOutputs[] = {8, 14, 20, 40};
  std::uint64_t state = 12345;
  const auto next = [&state](std::uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % bound;
  };
  std::vector<RequestSpec> requests;
  SimTime arrival = 0;
  for (int i = 0; i < count; ++i) {
    arrival += kGapsMs[next(std::size(kGapsMs))] * kMs;
    RequestSpec r;
    r.arrival = arrival;
    r.prompt_tokens = 100 + 100 * static_cast<std::int64_t>(next(2));
    r.output_tokens = kOutputs[next(std::size(kOutputs))];
    requests.push_back(r);
  }
  return requests;
}

}  // namespace

TEST_CASE("the windowed loop completes what the one-thread loop does, in its order") {
  const std::vector<RequestSpec> requests = bursty_requests(600);
  for (const char* router : {"round-robin", "least-loaded", "kv-aware"}) {
    for (std::size_t replicas : {2, 5, 7}) {
      const Outcome reference = run_fleet(replicas, router, requests, 1);
      REQUIRE(reference.completions.size() == requests.size());
      // Ties the order has to get right: same instant, different replicas, and (in some pair)
      // the later one on a lower replica, so that replica order would not do.
      int ties = 0, against_replica_order = 0;
      for (std::size_t i = 1; i < reference.completions.size(); ++i) {
        const Completion& a = reference.completions[i - 1];
        const Completion& b = reference.completions[i];
        if (a.now == b.now && a.replica != b.replica) {
          ++ties;
          if (b.replica < a.replica) ++against_replica_order;
        }
      }
      INFO(router << ", " << replicas << " replicas: " << ties << " ties, " << against_replica_order
                  << " against replica order");
      CHECK(ties > 20);
      CHECK(against_replica_order >= 2);
      for (std::size_t threads : {2, 3, 4}) {
        INFO(threads << " threads");
        const Outcome windowed = run_fleet(replicas, router, requests, threads);
        CHECK(windowed.completions == reference.completions);
        windowed_rig::check_same_stats(windowed.stats, reference.stats);
      }
    }
  }
}

TEST_CASE("the windowed loop applies only where replicas cannot interact between arrivals") {
  std::vector<RequestSpec> requests = bursty_requests(5);
  OpenLoopWorkload open(requests);
  ClosedLoopWorkload closed(parse_synthetic_spec("rate=1,prompt=fixed:10,output=fixed:5"),
                            ClosedLoopOptions{}, 1);
  std::vector<ClusterReplica> two(2), one(1);
  ClusterWiring wiring;
  wiring.replicas = two;
  CHECK(windowed_cluster_applies(wiring, open));
  CHECK_FALSE(windowed_cluster_applies(wiring, closed));  // a completion makes a request
  two[1].role = ReplicaRole::kDecode;
  CHECK_FALSE(windowed_cluster_applies(wiring, open));  // KV hand-offs between replicas
  wiring.replicas = one;
  CHECK_FALSE(windowed_cluster_applies(wiring, open));  // nothing to split
}

// Hand-worked: replicas 0 (group 0) and 1 (group 1).
//   t=10: arrival #5 makes replica 0 start, arrival #3 makes replica 1 start (separate windows
//         in reality; one log here): starts at 10 ordered 1 (arrival 3) before 0 (arrival 5).
//   t=20: both steps end, each completing a request: replica 1's end was pushed first, so its
//         completion comes first; each end makes its replica start again (same order).
//   t=30: both end again: still replica 1 first.
//   t=35: replica 0 alone: passed through.
TEST_CASE("InstantOrder orders same-instant completions as the one-thread agenda would") {
  using What = GroupLogEntry::What;
  // A main-lane step end; `started`: when its step started.
  const auto end = [](SimTime t, std::uint32_t r, SimTime started) {
    return GroupLogEntry{t, r, What::kStepEnd, 0, 0, static_cast<std::uint64_t>(started)};
  };
  // A start made by the replica's own main-lane end at its instant.
  const auto start = [](SimTime t, std::uint32_t r) {
    return GroupLogEntry{t, r, What::kStepStart, 1, 0, 0};
  };
  const auto start_by_arrival = [](SimTime t, std::uint32_t r, std::uint64_t arrival) {
    return GroupLogEntry{t, r, What::kStepStart, 1, GroupLogEntry::kArrivalTrigger, arrival};
  };
  const auto done = [](SimTime t, std::uint32_t r, std::uint64_t index) {
    return GroupLogEntry{t, r, What::kCompletion, 0, 0, index};
  };
  const auto window = [](const std::vector<GroupLogEntry>& entries) {
    WindowLog log;
    for (const GroupLogEntry& e : entries) log.add(e);
    return log;
  };
  InstantOrder order(2);
  const WindowLog group0 =
      window({start_by_arrival(10, 0, 5), end(20, 0, 10), done(20, 0, 0), start(20, 0),
              end(30, 0, 20), done(30, 0, 1), start(30, 0), end(35, 0, 30), done(35, 0, 2)});
  const WindowLog group1 = window({start_by_arrival(10, 1, 3), end(20, 1, 10), done(20, 1, 0),
                                   start(20, 1), end(30, 1, 20), done(30, 1, 1)});
  const std::vector<const WindowLog*> logs = {&group0, &group1};
  using Emitted = std::vector<std::pair<std::size_t, std::uint64_t>>;  // group, completed
  Emitted emitted;
  order.merge(logs, [&](std::size_t group, std::uint64_t completed) {
    emitted.emplace_back(group, completed);
  });
  CHECK(emitted == Emitted{{1, 0}, {0, 0}, {1, 1}, {0, 1}, {0, 2}});
  CHECK(order.shared_instants() == 3);  // 10, 20 and 30 (35: replica 0 alone)

  // The same, but replica 0 started at 10 and replica 1 at 15 with a 15 ms step: the start time
  // decides (replica 0 first at 30), whatever the arrivals' order.
  InstantOrder by_time(2);
  const WindowLog a = window({start_by_arrival(10, 0, 9), end(30, 0, 10), done(30, 0, 0)});
  const WindowLog b = window({start_by_arrival(15, 1, 1), end(30, 1, 15), done(30, 1, 0)});
  const std::vector<const WindowLog*> ab = {&a, &b};
  emitted.clear();
  by_time.merge(ab, [&](std::size_t group, std::uint64_t completed) {
    emitted.emplace_back(group, completed);
  });
  CHECK(emitted == Emitted{{0, 0}, {1, 0}});

  // Two replicas of one group at one instant are flagged by the group itself.
  WindowLog one_group;
  for (const GroupLogEntry& e : {start_by_arrival(10, 2, 7), start_by_arrival(10, 0, 4),
                                 end(20, 2, 10), done(20, 2, 0), end(20, 0, 10), done(20, 0, 1)}) {
    one_group.add(e);
  }
  CHECK(one_group.shared_instants() == std::vector<SimTime>{10, 20});
  InstantOrder within(3);
  const std::vector<const WindowLog*> only = {&one_group};
  emitted.clear();
  within.merge(only, [&](std::size_t group, std::uint64_t completed) {
    emitted.emplace_back(group, completed);
  });
  CHECK(emitted == Emitted{{0, 1}, {0, 0}});  // arrival 4 (replica 0) planned before arrival 7
}
