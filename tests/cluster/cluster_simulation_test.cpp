// The cluster event loop without SimGrid (a fixed-delay transport stands in for the network): one
// colocated replica reproduces run_simulation exactly, round-robin replicas reproduce independent
// runs on their shares, and a disaggregated request is hand-computed end to end.
#include "sim/cluster/cluster_simulation.hpp"

#include <algorithm>
#include <memory>
#include <span>
#include <sstream>

#include <catch2/catch.hpp>

#include "policies/policy_registry.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/time_model.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/simulation.hpp"
#include "tests/sim/test_profiles.hpp"
#include "traces/synthetic.hpp"

using namespace sparksim;

namespace {

constexpr SimTime kMs = 1'000'000;

// One replica's engine and what it refers to, with its requests.csv in memory.
struct Replica {
  std::unique_ptr<VerificationPolicy> policy;
  std::unique_ptr<AcceptanceModel> acceptance;
  std::ostringstream csv;
  MetricsCollector metrics{&csv};
  std::unique_ptr<Engine> engine;

  Replica(const EngineConfig& config, const TimeModel& tm, const SpsTable& sps,
          const std::string& acceptance_spec, const std::string& policy_spec, std::uint64_t seed)
      : policy(make_policy(NamedSpec::parse(policy_spec, "--policy"),
                           PolicyContext{config.drafter.gamma})),
        acceptance(make_acceptance_model(NamedSpec::parse(acceptance_spec, "--acceptance"),
                                         AcceptanceContext{config.drafter, "qwen3-8b", seed})),
        engine(std::make_unique<Engine>(config, tm, sps, *acceptance, *policy, metrics)) {}
};

// Fixed transfer time, whatever the size: for testing the loop, not the network.
class FixedDelayTransport final : public KvTransport {
 public:
  explicit FixedDelayTransport(SimTime delay) : delay_(delay) {}
  std::size_t start(std::uint64_t, std::size_t from, std::size_t to, std::uint64_t bytes,
                    SimTime now) override {
    starts.push_back({from, to, bytes, now});
    pending_.push_back(KvLanding{starts.size() - 1, now + delay_});
    return starts.size() - 1;
  }
  bool busy() const override { return !pending_.empty(); }
  std::optional<KvLanding> next_landing(std::optional<SimTime> limit) override {
    if (pending_.empty() || (limit && pending_.front().time > *limit)) return std::nullopt;
    const KvLanding first = pending_.front();
    pending_.erase(pending_.begin());
    return first;
  }
  struct Start {
    std::size_t from, to;
    std::uint64_t bytes;
    SimTime now;
  };
  std::vector<Start> starts;

 private:
  SimTime delay_;
  std::vector<KvLanding> pending_;  // FIFO: a fixed delay keeps start order
};

EngineConfig config_for(const Profile& profile, const std::string& drafter) {
  EngineConfig c;
  c.drafter = parse_drafter(drafter);
  c.kv_capacity_tokens = profile.kv_capacity_tokens();
  return c;
}

// Constant 10 ms steps and mtp1 verifying its one draft, always accepted (2 tokens per step):
// replicas whose timings the tests work out by hand.
struct HandTimedReplicas {
  const Profile profile = testing::constant_step_profile(10'000);
  const TimeModel tm;
  const SpsTable sps;
  EngineConfig config;

  explicit HandTimedReplicas(std::int64_t kv_capacity_tokens)
      : tm(profile), sps(profile.sps, 4096) {
    config.drafter = parse_drafter("mtp1");
    config.kv_capacity_tokens = kv_capacity_tokens;
  }
  Replica make() const { return Replica(config, tm, sps, "bernoulli:p=1", "static:k=1", 1); }
};

// What routers read returns to zero when all is done.
void check_drained(const Replica& r) {
  CHECK(r.engine->outstanding_tokens() == 0);
  CHECK(r.engine->kv_queued_demand() == 0);
  CHECK(r.engine->kv_reserved() == 0);
}

// Colocated replicas behind the `router` (no transport needed), serving `requests` open-loop.
ClusterStats run_colocated(std::span<const ClusterReplica> replicas, const std::string& router,
                           const std::vector<RequestSpec>& requests) {
  auto arrivals = make_router(NamedSpec::parse(router, "--router"));
  ClusterWiring wiring;
  wiring.replicas = replicas;
  wiring.arrival_router = arrivals.get();
  OpenLoopWorkload workload(requests);
  return run_cluster_simulation(wiring, workload);
}

std::vector<std::string> lines_without_id(const std::string& csv) {
  std::vector<std::string> out;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) out.push_back(line.substr(line.find(',')));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("one colocated replica performs exactly what run_simulation performs") {
  const Profile profile = load_profile("profiles/analytic/h100-sxm/qwen3-8b.json");
  const TimeModel tm(profile);
  const SpsTable sps(profile.sps, 8192);
  const EngineConfig config = config_for(profile, "dspark-7");
  const Trace trace = generate_synthetic_trace(
      parse_synthetic_spec("rate=30,cv=2.0,prompt=lognormal:800:1.0,output=lognormal:150:0.8,"
                           "domain=math:0.3/code:0.3/chat:0.4,duration_s=60"),
      5);
  REQUIRE(trace.requests.size() > 1000);

  Replica alone(config, tm, sps, "bernoulli", "static:k=3", 5);
  OpenLoopWorkload w1(trace.requests);
  const SimulationStats single = run_simulation(*alone.engine, w1);

  Replica member(config, tm, sps, "bernoulli", "static:k=3", 5);
  const ClusterReplica replicas[] = {{member.engine.get(), ReplicaRole::kColocated}};
  const ClusterStats cluster = run_colocated(replicas, "least-loaded", trace.requests);

  CHECK(cluster.events == single.events);
  CHECK(cluster.end_time == single.end_time);
  CHECK(cluster.requests_submitted == single.requests_submitted);
  CHECK(cluster.requests_rejected_kv == single.requests_rejected_kv);
  CHECK(cluster.replicas.at(0).end_time == single.end_time);
  CHECK(member.csv.str() == alone.csv.str());  // every request, every timestamp, same order
  CHECK(member.metrics.counters().request_steps == alone.metrics.counters().request_steps);
}

TEST_CASE("round-robin replicas each do what an independent run on their share does") {
  // Acceptance p=1 draws nothing at random: the cluster numbers requests globally (so routers are
  // compared under common random numbers), a lone run locally, and only the ids may differ.
  const Profile profile = load_profile("profiles/analytic/h100-sxm/qwen3-8b.json");
  const TimeModel tm(profile);
  const SpsTable sps(profile.sps, 8192);
  EngineConfig config = config_for(profile, "dspark-5");
  config.kv_capacity_tokens = 60'000;  // small enough to preempt and to refuse the longest
  const Trace trace = generate_synthetic_trace(
      parse_synthetic_spec("rate=40,cv=3.0,prompt=lognormal:2000:1.2,output=lognormal:300:1.0,"
                           "domain=chat,duration_s=40"),
      9);
  constexpr std::size_t n = 3;

  std::vector<std::unique_ptr<Replica>> members;
  std::vector<ClusterReplica> replicas;
  for (std::size_t i = 0; i < n; ++i) {
    members.push_back(std::make_unique<Replica>(config, tm, sps, "bernoulli:p=1", "static:k=2", 9));
    replicas.push_back({members.back()->engine.get(), ReplicaRole::kColocated});
  }
  const ClusterStats cluster = run_colocated(replicas, "round-robin", trace.requests);

  std::int64_t preemptions = 0, rejected = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<RequestSpec> share;
    for (std::size_t k = i; k < trace.requests.size(); k += n) share.push_back(trace.requests[k]);
    Replica alone(config, tm, sps, "bernoulli:p=1", "static:k=2", 9);
    OpenLoopWorkload w(share);
    const SimulationStats single = run_simulation(*alone.engine, w);
    INFO("replica " << i);
    CHECK(cluster.replicas[i].end_time == single.end_time);
    CHECK(cluster.replicas[i].requests_submitted == single.requests_submitted);
    CHECK(cluster.replicas[i].requests_rejected_kv == single.requests_rejected_kv);
    CHECK(lines_without_id(members[i]->csv.str()) == lines_without_id(alone.csv.str()));
    const auto& a = members[i]->metrics.counters();
    const auto& b = alone.metrics.counters();
    CHECK(a.steps == b.steps);
    CHECK(a.request_steps == b.request_steps);
    CHECK(a.preemptions == b.preemptions);
    CHECK(a.kv_peak_reserved == b.kv_peak_reserved);
    preemptions += a.preemptions;
    rejected += single.requests_rejected_kv;
  }
  CHECK(preemptions > 0);  // the scenario exercises preemption...
  CHECK(rejected > 0);     // ...and refusal, not only the easy path
  for (const auto& m : members) check_drained(*m);
}

TEST_CASE("a disaggregated request: prefill, KV transfer, decode, TTFT includes the transfer") {
  // Constant 10 ms steps, mtp1 verifying 1 draft that is always accepted (2 tokens per step),
  // transfers take 3 ms. Request 0 (prompt 100, output 5) arrives at 0:
  //   prefill replica: step 0-10 ms, first token at 10 → hand-off at 10, lands at 13;
  //   decode replica: steps 13-23 (tokens 2-3) and 23-33 (tokens 4-5) → done at 33.
  // TTFT 13 ms, E2E 33 ms, TPOT (33-13)/4 = 5 ms; queueing 0 (prefill admitted at once).
  const HandTimedReplicas hand_timed(100'000);
  Replica prefill = hand_timed.make();
  Replica decode_a = hand_timed.make();
  Replica decode_b = hand_timed.make();
  const ClusterReplica replicas[] = {{prefill.engine.get(), ReplicaRole::kPrefill},
                                     {decode_a.engine.get(), ReplicaRole::kDecode},
                                     {decode_b.engine.get(), ReplicaRole::kDecode}};
  auto arrivals = make_router(NamedSpec::parse("least-loaded", "--router"));
  auto decodes = make_router(NamedSpec::parse("least-loaded", "--router"));
  FixedDelayTransport transport(3 * kMs);
  ClusterWiring wiring;
  wiring.replicas = replicas;
  wiring.arrival_router = arrivals.get();
  wiring.decode_router = decodes.get();
  wiring.transport = &transport;
  wiring.kv_bytes_per_token = 1000.5;
  // Requests 1 and 2 arrive together at 50 ms and finish prefill together: least-loaded must
  // count the first hand-off (still in flight) and send the second elsewhere. Request 3 has a
  // single output token: the prefill replica completes it, nothing moves.
  const std::vector<RequestSpec> specs = {{0, 100, 5, Domain::kChat},
                                          {50 * kMs, 40, 3, Domain::kChat},
                                          {50 * kMs, 40, 3, Domain::kChat},
                                          {200 * kMs, 10, 1, Domain::kChat},
                                          {300 * kMs, 99'995, 5, Domain::kChat}};
  OpenLoopWorkload workload(specs);
  std::vector<std::pair<Request, std::size_t>> done;
  const ClusterStats stats = run_cluster_simulation(
      wiring, workload,
      [&](const Request& r, std::size_t replica, SimTime) { done.emplace_back(r, replica); });

  REQUIRE(done.size() == 4);
  const auto& [r0, at0] = done[0];
  CHECK(r0.id == 0);
  CHECK(at0 == 1);
  CHECK(r0.arrival == 0);
  CHECK(r0.first_admitted == 0);  // the prefill side's admission
  CHECK(r0.first_token == 13 * kMs);
  CHECK(r0.done == 33 * kMs);
  CHECK(r0.generated == 5);
  CHECK(r0.decode_steps == 2);
  CHECK(r0.prefill_tokens_computed == 100);
  REQUIRE(transport.starts.size() == 3);
  CHECK(transport.starts[0].now == 10 * kMs);
  CHECK(transport.starts[0].bytes == 100'050);              // 100 × 1000.5
  CHECK(transport.starts[1].to != transport.starts[2].to);  // in-flight work counted
  CHECK(done[3].first.id == 3);
  CHECK(done[3].second == 0);  // one output token: done where it was prefilled
  CHECK(done[3].first.done == 210 * kMs);
  // Request 4 could never fit a decode replica's KV: refused at the router.
  CHECK(stats.requests_submitted == 5);
  CHECK(stats.requests_rejected_kv == 1);
  CHECK(stats.kv_transfers == 3);
  CHECK(stats.replicas[0].requests_submitted == 4);
  CHECK(stats.replicas[1].requests_submitted + stats.replicas[2].requests_submitted == 3);
  // The decode replica counted the hand-off's ITL from the landing: gaps of 10 ms only.
  CHECK(decode_a.metrics.itl_step_ms().p50 == Approx(10.0).epsilon(0.01));
  CHECK(decode_a.metrics.counters().prefill_tokens == 0);
  for (const Replica* r : {&prefill, &decode_a, &decode_b}) check_drained(*r);
}

TEST_CASE("inconsistent wirings are refused") {
  const HandTimedReplicas hand_timed(10'000);
  Replica a = hand_timed.make();
  Replica b = hand_timed.make();
  auto router = make_router(NamedSpec::parse("round-robin", "--router"));
  const std::vector<RequestSpec> none;
  OpenLoopWorkload workload(none);
  ClusterWiring wiring;
  wiring.arrival_router = router.get();
  const ClusterReplica mixed[] = {{a.engine.get(), ReplicaRole::kColocated},
                                  {b.engine.get(), ReplicaRole::kDecode}};
  wiring.replicas = mixed;
  CHECK_THROWS_AS(run_cluster_simulation(wiring, workload), std::invalid_argument);
  const ClusterReplica no_transport[] = {{a.engine.get(), ReplicaRole::kPrefill},
                                         {b.engine.get(), ReplicaRole::kDecode}};
  wiring.replicas = no_transport;
  CHECK_THROWS_AS(run_cluster_simulation(wiring, workload), std::invalid_argument);
}
