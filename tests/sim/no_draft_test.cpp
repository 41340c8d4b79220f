// `--drafter none`: plain autoregressive decoding against closed forms. With a step time linear in
// the batch's tokens, one request alone takes prefill(P) + (output - 1) x decode step; with one
// request in service at a time and Poisson arrivals the engine is an M/D/1 queue, whose mean wait
// is the Pollaczek-Khinchine value rho S / (2 (1 - rho)).
#include <catch2/catch.hpp>

#include "policies/policy_registry.hpp"
#include "profiles/drafter.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/engine.hpp"
#include "sim/simulation.hpp"
#include "test_profiles.hpp"
#include "traces/synthetic.hpp"

using namespace sparksim;

namespace {

// fixed 2 ms + 10 us per token in the step: prefill of P tokens = 2 + 0.01 P ms, decode = 2.01 ms.
Profile linear_profile() {
  Profile p = testing::constant_step_profile(2000);
  p.verify.dense_tokens = {1, 1'000'000};
  p.verify.dense_us = {10, 10'000'000};
  return p;
}

struct NoDraftRig {
  Profile profile = linear_profile();
  TimeModel time_model{profile};
  SpsTable sps{profile.sps, 4096};
  std::unique_ptr<VerificationPolicy> policy;
  std::unique_ptr<AcceptanceModel> acceptance;
  MetricsCollector metrics{nullptr};
  std::unique_ptr<Engine> engine;
  std::vector<Request> done;

  explicit NoDraftRig(std::int64_t max_running) {
    EngineConfig c;
    c.drafter = parse_drafter("none");
    c.kv_capacity_tokens = 1'000'000;
    c.max_running = max_running;
    // Any policy and acceptance name resolves to "verify nothing" without a drafter.
    policy = make_policy(NamedSpec::parse("greedy", "--policy"), PolicyContext{c.drafter.gamma});
    acceptance = make_acceptance_model(NamedSpec::parse("calibrated", "--acceptance"),
                                       AcceptanceContext{c.drafter, "qwen3-8b", 1});
    engine = std::make_unique<Engine>(c, time_model, sps, *acceptance, *policy, metrics);
  }
  SimulationStats run(Workload& w) {
    return run_simulation(*engine, w, [this](const Request& r, SimTime) { done.push_back(r); });
  }
};

}  // namespace

TEST_CASE("drafter none parses to gamma 0 and costs no draft time") {
  const DrafterSpec none = parse_drafter("none");
  CHECK(none.gamma == 0);
  CHECK_FALSE(none.speculates());
  CHECK(none.name == "none");
  CHECK(drafter_family_name(none.family) == "none");
  const Profile p = linear_profile();
  CHECK(TimeModel(p).draft_time(none, 64, 100'000) == 0);
}

TEST_CASE("no speculation, one request: prefill + (output - 1) decode steps") {
  NoDraftRig rig(1);
  const std::vector<RequestSpec> trace{{0, 500, 40, Domain::kChat}};
  OpenLoopWorkload w(trace);
  rig.run(w);
  REQUIRE(rig.done.size() == 1);
  const Request& r = rig.done.front();
  const SimTime prefill = 2'000'000 + 500 * 10'000;  // 7 ms
  const SimTime decode = 2'000'000 + 10'000;         // 2.01 ms
  CHECK(r.first_token == prefill);
  CHECK(r.done == prefill + 39 * decode);
  CHECK(r.decode_steps == 39);
  CHECK(r.decode_committed == 39);  // one token per step
  CHECK(r.drafts_verified == 0);
}

TEST_CASE("no speculation, one at a time, Poisson arrivals: the M/D/1 mean wait") {
  // Service S = prefill(100) + 9 decode steps = 3 + 9 x 2.01 = 21.09 ms; rho = 0.5.
  const double service_s = 0.003 + 9 * 0.00201;
  const double rho = 0.5;
  SyntheticSpec spec = parse_synthetic_spec("rate=1,prompt=fixed:100,output=fixed:10");
  spec.rate_per_s = rho / service_s;
  spec.duration_s = 20000 / spec.rate_per_s;  // about 20 000 requests
  const Trace trace = generate_synthetic_trace(spec, 7);
  NoDraftRig rig(1);
  OpenLoopWorkload w(trace.requests);
  rig.run(w);
  REQUIRE(rig.done.size() == trace.requests.size());
  double wait = 0;
  for (const Request& r : rig.done) {
    wait += sim_time_to_seconds(r.done - r.arrival) - service_s;
  }
  wait /= static_cast<double>(rig.done.size());
  const double pk = rho * service_s / (2 * (1 - rho));  // 10.5 ms
  // Sampling error of a 20 000-request mean wait at rho 0.5 is a few percent.
  CHECK(wait == Approx(pk).epsilon(0.08));
}
