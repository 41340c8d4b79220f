// The rig of the windowed cluster loop's feature tests (windowed_cluster_features_test.cpp,
// windowed_cluster_random_test.cpp): hand-built fleets run through run_cluster_simulation at any
// thread count, and what their observers saw, compared field by field.
#pragma once

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

namespace sparksim::windowed_rig {

inline constexpr SimTime kMs = 1'000'000;

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

inline std::ostream& operator<<(std::ostream& os, const Completion& c) {
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
inline void run_fleet_into(const Fleet& fleet, const std::vector<RequestSpec>& requests,
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

inline Outcome run_fleet(const Fleet& fleet, const std::vector<RequestSpec>& requests,
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

inline RequestSpec request(SimTime arrival, std::int64_t prompt, std::int64_t output) {
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

inline Ties completion_ties(const std::vector<Completion>& completions) {
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

inline void check_same_stats(const ClusterStats& a, const ClusterStats& b) {
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
inline void check_same_completions(const std::vector<Completion>& reference,
                                   const std::vector<Completion>& windowed) {
  std::size_t i = 0;
  while (i < reference.size() && i < windowed.size() && reference[i] == windowed[i]) ++i;
  INFO("completions: " << reference.size() << " one-thread, " << windowed.size() << " windowed");
  if (i < reference.size()) INFO("one-thread #" << i << ": " << reference[i]);
  if (i < windowed.size()) INFO("windowed #" << i << ": " << windowed[i]);
  CHECK(i == reference.size());
  CHECK(i == windowed.size());
}

// `threads` threads against the one-thread reference (already run).
inline void check_windowed_equals_at(const Fleet& fleet, const std::vector<RequestSpec>& requests,
                                     const Outcome& reference, std::size_t threads) {
  INFO(threads << " threads");
  const Outcome windowed = run_fleet(fleet, requests, threads);
  check_same_completions(reference.completions, windowed.completions);
  for (std::size_t r = 0; r < fleet.replicas; ++r) {
    INFO("replica " << r << "'s steps");
    CHECK(windowed.steps[r] == reference.steps[r]);
  }
  check_same_stats(windowed.stats, reference.stats);
}

// Threads 2, 3 and 4 against the one-thread reference (already run).
inline void check_windowed_equals(const Fleet& fleet, const std::vector<RequestSpec>& requests,
                                  const Outcome& reference) {
  for (const std::size_t threads : {2, 3, 4}) {
    check_windowed_equals_at(fleet, requests, reference, threads);
  }
}

}  // namespace sparksim::windowed_rig
