// The windowed cluster loop against its reference, the one-thread loop, on the engine features
// windowed_cluster_test.cpp leaves out: a separate prefill lane (two lanes of one replica ending
// at one instant, with equal or different starts), front-end intake waits and streaming, KV
// rejections and preemptions, one calibrated acceptance model shared by every replica (as the
// cluster command shares it), and arrivals piled on a few instants. Each scenario first checks on
// the one-thread run that it produces what it is there for (ties between replicas, preemptions,
// ...), then that 2, 3 and 4 threads give the same completions (every field the outputs read), the
// same step sequence on every replica and the same ClusterStats.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "policies/policy_registry.hpp"
#include "profiles/time_model.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/cluster/cluster_simulation.hpp"
#include "tests/sim/test_profiles.hpp"

using namespace sparksim;

namespace {

constexpr SimTime kMs = 1'000'000;

// What the observer saw of one completion: every field an output reads.
struct Completion {
  std::uint64_t id;
  std::size_t replica;
  SimTime now;
  SimTime arrival, first_admitted, first_token, done;
  std::int64_t generated, preemptions, prefill_tokens_computed, decode_steps;
  std::int64_t drafts_verified, drafts_accepted, decode_committed;
  bool operator==(const Completion&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Completion& c) {
  return os << "{id " << c.id << ", replica " << c.replica << ", now " << c.now << ", arrival "
            << c.arrival << ", admitted " << c.first_admitted << ", first " << c.first_token
            << ", done " << c.done << ", generated " << c.generated << ", preemptions "
            << c.preemptions << ", prefill " << c.prefill_tokens_computed << ", decode steps "
            << c.decode_steps << ", drafts " << c.drafts_accepted << "/" << c.drafts_verified
            << "}";
}

// One step of one replica as its step observer saw it: the lane is implied by the items (with a
// separate prefill lane the main lane only decodes and the prefill lane only prefills).
struct StepSeen {
  SimTime start, end;
  std::vector<std::tuple<std::uint64_t, std::int64_t, std::int64_t, std::int64_t, bool>> items;
  bool prefill_lane() const { return !items.empty() && std::get<4>(items.front()); }
  bool operator==(const StepSeen&) const = default;
};

struct Outcome {
  std::vector<Completion> completions;
  std::vector<std::vector<StepSeen>> steps;  // per replica
  ClusterStats stats;
};

// A fleet of identical replicas, except that replica i runs on profiles[i % profiles.size()].
struct Fleet {
  std::size_t replicas = 5;
  std::string router = "round-robin";
  std::vector<Profile> profiles = {testing::constant_step_profile(10'000)};
  EngineConfig config;
  std::string policy = "static:k=1";
  std::string acceptance = "bernoulli:p=1";
  // One acceptance model for every replica (it must be shareable), built once as the cluster
  // command's build_rigs builds it; otherwise one per replica from the same spec and seed.
  bool share_acceptance = false;

  Fleet() {
    config.drafter = parse_drafter("mtp1");
    config.kv_capacity_tokens = 20'000;
    config.max_running = 4;
  }
};

// Runs `fleet` on `threads` threads into `out`, which keeps what the observers saw if the run
// throws.
void run_fleet_into(const Fleet& fleet, const std::vector<RequestSpec>& requests,
                    std::size_t threads, Outcome& out) {
  std::vector<std::unique_ptr<TimeModel>> time_models;
  std::vector<std::unique_ptr<SpsTable>> sps;
  for (const Profile& p : fleet.profiles) {
    time_models.push_back(std::make_unique<TimeModel>(p));
    sps.push_back(std::make_unique<SpsTable>(p.sps, 4096));
  }
  const AcceptanceContext context{fleet.config.drafter, "qwen3-8b", 7};
  const NamedSpec acceptance = NamedSpec::parse(fleet.acceptance, "--acceptance");
  std::vector<std::unique_ptr<VerificationPolicy>> policies;
  std::vector<std::shared_ptr<AcceptanceModel>> models;
  std::vector<std::unique_ptr<MetricsCollector>> metrics;
  std::vector<std::unique_ptr<Engine>> engines;
  std::vector<ClusterReplica> wired;
  out.steps.resize(fleet.replicas);
  for (std::size_t i = 0; i < fleet.replicas; ++i) {
    policies.push_back(make_policy(NamedSpec::parse(fleet.policy, "--policy"),
                                   PolicyContext{fleet.config.drafter.gamma}));
    if (i > 0 && fleet.share_acceptance) {
      REQUIRE(models.front()->shareable());
      models.push_back(models.front());
    } else {
      models.push_back(make_acceptance_model(acceptance, context));
    }
    metrics.push_back(std::make_unique<MetricsCollector>(nullptr));
    const std::size_t p = i % fleet.profiles.size();
    engines.push_back(std::make_unique<Engine>(fleet.config, *time_models[p], *sps[p],
                                               *models.back(), *policies.back(), *metrics.back()));
    // Each replica writes only its own list, and a replica runs on one thread at a time.
    std::vector<StepSeen>& seen = out.steps[i];
    engines.back()->set_step_observer([&seen](SimTime start, SimTime end,
                                              const std::vector<Engine::StepItem>& items) {
      StepSeen s{start, end, {}};
      for (const Engine::StepItem& item : items) {
        s.items.emplace_back(item.request, item.context, item.width, item.commits, item.prefill);
      }
      seen.push_back(std::move(s));
    });
    wired.push_back(ClusterReplica{engines.back().get(), ReplicaRole::kColocated});
  }
  auto router = make_router(NamedSpec::parse(fleet.router, "--router"));
  ClusterWiring wiring;
  wiring.replicas = wired;
  wiring.arrival_router = router.get();
  OpenLoopWorkload workload(requests);
  out.stats = run_cluster_simulation(
      wiring, workload,
      [&](const Request& r, std::size_t replica, SimTime now) {
        out.completions.push_back(
            Completion{r.id, replica, now, r.arrival, r.first_admitted, r.first_token, r.done,
                       r.generated, r.preemptions, r.prefill_tokens_computed, r.decode_steps,
                       r.drafts_verified, r.drafts_accepted, r.decode_committed});
      },
      threads);
}

Outcome run_fleet(const Fleet& fleet, const std::vector<RequestSpec>& requests,
                  std::size_t threads) {
  Outcome out;
  run_fleet_into(fleet, requests, threads, out);
  return out;
}

// A fixed linear congruential sequence (not a library's, so it cannot change under the test).
class Lcg {
 public:
  explicit Lcg(std::uint64_t seed) : state_(seed) {}
  std::uint64_t below(std::uint64_t bound) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state_ >> 33) % bound;
  }

 private:
  std::uint64_t state_;
};

RequestSpec request(SimTime arrival, std::int64_t prompt, std::int64_t output) {
  RequestSpec r;
  r.arrival = arrival;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  return r;
}

// What a scenario must show on the one-thread run before any comparison means something.
struct Ties {
  int between_replicas = 0;       // consecutive completions at one instant on two replicas
  int against_replica_order = 0;  // of those, the later on the lower replica
};

Ties completion_ties(const std::vector<Completion>& completions) {
  Ties t;
  for (std::size_t i = 1; i < completions.size(); ++i) {
    const Completion& a = completions[i - 1];
    const Completion& b = completions[i];
    if (a.now == b.now && a.replica != b.replica) {
      ++t.between_replicas;
      if (b.replica < a.replica) ++t.against_replica_order;
    }
  }
  return t;
}

void check_same_stats(const ClusterStats& a, const ClusterStats& b) {
  CHECK(a.requests_submitted == b.requests_submitted);
  CHECK(a.requests_rejected_kv == b.requests_rejected_kv);
  CHECK(a.kv_transfers == b.kv_transfers);
  CHECK(a.events == b.events);
  CHECK(a.end_time == b.end_time);
  REQUIRE(a.replicas.size() == b.replicas.size());
  for (std::size_t r = 0; r < a.replicas.size(); ++r) {
    INFO("replica " << r);
    CHECK(a.replicas[r].requests_submitted == b.replicas[r].requests_submitted);
    CHECK(a.replicas[r].requests_rejected_kv == b.replicas[r].requests_rejected_kv);
    CHECK(a.replicas[r].end_time == b.replicas[r].end_time);
  }
}

// The first completion where the two runs part (or the shorter one's end), for a readable failure.
void check_same_completions(const std::vector<Completion>& reference,
                            const std::vector<Completion>& windowed) {
  std::size_t i = 0;
  while (i < reference.size() && i < windowed.size() && reference[i] == windowed[i]) ++i;
  INFO("completions: " << reference.size() << " one-thread, " << windowed.size() << " windowed");
  if (i < reference.size()) INFO("one-thread #" << i << ": " << reference[i]);
  if (i < windowed.size()) INFO("windowed #" << i << ": " << windowed[i]);
  CHECK(i == reference.size());
  CHECK(i == windowed.size());
}

// Threads 2, 3 and 4 against the one-thread reference (already run).
void check_windowed_equals(const Fleet& fleet, const std::vector<RequestSpec>& requests,
                           const Outcome& reference) {
  for (const std::size_t threads : {2, 3, 4}) {
    INFO(threads << " threads");
    const Outcome windowed = run_fleet(fleet, requests, threads);
    check_same_completions(reference.completions, windowed.completions);
    for (std::size_t r = 0; r < fleet.replicas; ++r) {
      INFO("replica " << r << "'s steps");
      CHECK(windowed.steps[r] == reference.steps[r]);
    }
    check_same_stats(windowed.stats, reference.stats);
  }
}

}  // namespace

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
    const Outcome windowed = run_fleet(fleet, requests, threads);
    check_same_completions(reference.completions, windowed.completions);
    for (std::size_t r = 0; r < fleet.replicas; ++r) {
      INFO("replica " << r << "'s steps");
      CHECK(windowed.steps[r] == reference.steps[r]);
    }
    check_same_stats(windowed.stats, reference.stats);
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
// Fails at 2 threads as of 74e3ade: the windowed loop rethrows the error of the lowest-numbered
// group that threw (replica 0's, at 750 s) and drops the completions of the window it was in.
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
