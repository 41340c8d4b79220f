// Engine tests: a hand-computed two-request scenario, KV limits and preemption, conservation and
// determinism on random workloads, and the separate prefill stage.
#include "sim/engine.hpp"

#include <sstream>

#include <catch2/catch.hpp>

#include "policies/static_policy.hpp"
#include "sim/acceptance/position_bernoulli_model.hpp"
#include "sim/simulation.hpp"
#include "test_profiles.hpp"
#include "traces/synthetic.hpp"

using namespace sparksim;

namespace {

constexpr SimTime kMs = 1'000'000;

struct Rig {
  Profile profile;
  TimeModel time_model;
  SpsTable sps;
  PositionBernoulliModel acceptance;
  StaticPolicy policy;
  std::ostringstream csv;
  MetricsCollector metrics;
  Engine engine;
  std::vector<Request> done;

  Rig(EngineConfig config, double step_us, double p_accept, int k, std::uint64_t seed = 1)
      : profile(testing::constant_step_profile(step_us)),
        time_model(profile),
        sps(profile.sps, 4096),
        acceptance(p_accept, config.drafter.gamma, seed),
        policy(k, /*synchronous=*/false),
        metrics(&csv),
        engine(config, time_model, sps, acceptance, policy, metrics) {}
  SimulationStats run(Workload& workload) {
    return run_simulation(engine, workload,
                          [this](const Request& r, SimTime) { done.push_back(r); });
  }
};

EngineConfig config_with(int gamma, std::int64_t kv_capacity) {
  EngineConfig c;
  c.drafter = DrafterSpec{gamma == 1 ? DrafterFamily::kMtp1 : DrafterFamily::kDspark, gamma,
                          gamma == 1 ? "mtp1" : "dspark-" + std::to_string(gamma)};
  c.kv_capacity_tokens = kv_capacity;
  return c;
}

const Request& find(const std::vector<Request>& v, std::uint64_t id) {
  for (const auto& r : v) {
    if (r.id == id) return r;
  }
  FAIL("request " << id << " did not complete");
  return v.front();
}

}  // namespace

TEST_CASE("two requests with a constant 10 ms step: exact TTFT, TPOT, E2E") {
  // A: t=0, prompt 100, output 5. B: t=5 ms, prompt 50, output 3. mtp1 (γ=1), static:k=1, every
  // draft accepted, so a decode step commits 2 tokens.
  //   step 1 [0,10]:  A prefills 100 → A's first token at 10 ms.
  //   step 2 [10,20]: A verifies 2 tokens (gen 3); B (arrived at 5) prefills → first token 20 ms.
  //   step 3 [20,30]: A commits min(2, 5-3) = 2 → done; B commits min(2, 3-1) = 2 → done.
  Rig rig(config_with(1, 100'000), 10'000.0, 1.0, 1);
  std::vector<RequestSpec> trace = {{0, 100, 5, Domain::kChat}, {5 * kMs, 50, 3, Domain::kCode}};
  OpenLoopWorkload workload(trace);
  const SimulationStats stats = rig.run(workload);

  REQUIRE(rig.done.size() == 2);
  const Request& a = find(rig.done, 0);
  const Request& b = find(rig.done, 1);
  CHECK(a.first_token == 10 * kMs);
  CHECK(a.done == 30 * kMs);
  CHECK(b.first_admitted == 10 * kMs);
  CHECK(b.first_token == 20 * kMs);
  CHECK(b.done == 30 * kMs);
  CHECK(stats.end_time == 30 * kMs);

  const auto& c = rig.metrics.counters();
  CHECK(c.steps == 3);
  CHECK(c.request_steps == 3);
  CHECK(c.output_tokens == 8);
  CHECK(c.decode_committed == 6);
  CHECK(c.verify_tokens == 6);
  CHECK(c.prefill_tokens == 150);
  // TTFT: A 10 ms, B 15 ms. TPOT: A (30-10)/4 = 5 ms, B (30-20)/2 = 5 ms. E2E: 30 ms, 25 ms.
  CHECK(rig.metrics.ttft_ms().mean == Approx(12.5));
  CHECK(rig.metrics.ttft_ms().p50 == Approx(12.5));
  CHECK(rig.metrics.tpot_ms().p10 == Approx(5.0));
  CHECK(rig.metrics.tpot_ms().p90 == Approx(5.0));
  CHECK(rig.metrics.e2e_s().mean == Approx(0.0275));
  CHECK(rig.metrics.tok_s_per_user().mean == Approx(200.0));
  // ITL per step: A gets 10 ms, 10 ms; B gets 10 ms. Per token: each 2-token delivery → 5 ms.
  CHECK(rig.metrics.itl_step_ms().count == 3);
  CHECK(rig.metrics.itl_step_ms().p50 == Approx(10.0).epsilon(LogHistogram::kRelativeError));
  CHECK(rig.metrics.itl_token_ms().count == 6);
  CHECK(rig.metrics.itl_token_ms().mean == Approx(5.0));
}

TEST_CASE("rejected drafts: with acceptance 0 every step commits exactly one token") {
  Rig rig(config_with(7, 100'000), 1'000.0, 0.0, 7);
  std::vector<RequestSpec> trace = {{0, 10, 20, Domain::kChat}};
  OpenLoopWorkload workload(trace);
  rig.run(workload);
  const auto& c = rig.metrics.counters();
  CHECK(c.request_steps == 19);  // first token from prefill, then 19 one-token steps
  CHECK(c.drafts_verified == 19 * 7);
  CHECK(c.drafts_accepted == 0);
  CHECK(find(rig.done, 0).done == 20 * 1'000'000LL);
}

TEST_CASE("a request that can never fit in KV is refused, others still run") {
  Rig rig(config_with(7, 1000), 1'000.0, 0.5, 3);
  std::vector<RequestSpec> trace = {{0, 900, 200, Domain::kChat}, {0, 100, 50, Domain::kChat}};
  OpenLoopWorkload workload(trace);
  const auto stats = rig.run(workload);
  CHECK(stats.requests_rejected_kv == 1);
  REQUIRE(rig.done.size() == 1);
  CHECK(rig.done[0].id == 1);
}

TEST_CASE("requests that do not fit wait in FIFO order and run once KV frees") {
  // Capacity 300: each request reserves prompt 100 + generated + γ+1 = 102 at admission, so two
  // fit and the third waits until one completes.
  auto config = config_with(1, 300);
  Rig rig(config, 1'000.0, 1.0, 1);
  std::vector<RequestSpec> trace = {
      {0, 100, 4, Domain::kChat}, {0, 100, 4, Domain::kChat}, {0, 100, 4, Domain::kChat}};
  OpenLoopWorkload workload(trace);
  rig.run(workload);
  REQUIRE(rig.done.size() == 3);
  CHECK(find(rig.done, 0).first_admitted == 0);
  CHECK(find(rig.done, 1).first_admitted == 0);
  CHECK(find(rig.done, 2).first_admitted >= find(rig.done, 0).done);
  CHECK(rig.metrics.counters().kv_peak_reserved <= 300);
}

TEST_CASE("max_running bounds the batch") {
  auto config = config_with(1, 1'000'000);
  config.max_running = 2;
  Rig rig(config, 1'000.0, 1.0, 1);
  std::vector<RequestSpec> trace(5, RequestSpec{0, 10, 6, Domain::kChat});
  OpenLoopWorkload workload(trace);
  rig.run(workload);
  REQUIRE(rig.done.size() == 5);
  CHECK(find(rig.done, 2).first_admitted > 0);
  CHECK(find(rig.done, 4).first_admitted > find(rig.done, 2).first_admitted);
}

namespace {

struct RandomRun {
  AggregateCounters counters;
  std::int64_t expected_tokens = 0;
  std::int64_t completed = 0;
  std::int64_t rejected = 0;
  std::int64_t trace_size = 0;
  std::string csv;
};

RandomRun random_run(std::uint64_t seed, std::int64_t kv_capacity, PrefillMode mode,
                     std::int64_t budget) {
  auto spec = parse_synthetic_spec(
      "rate=40,cv=2,prompt=lognormal:300:1.0,output=lognormal:60:1.0,"
      "domain=math:0.3/code:0.3/chat:0.4,duration_s=20");
  const Trace trace = generate_synthetic_trace(spec, seed);
  auto config = config_with(7, kv_capacity);
  config.prefill_mode = mode;
  config.max_batch_tokens = budget;
  Profile profile = testing::constant_step_profile(5'000.0);
  TimeModel tm(profile);
  SpsTable sps(profile.sps, 4096);
  PositionBernoulliModel acceptance(DrafterSpec{DrafterFamily::kDspark, 7, "dspark-7"}, seed);
  StaticPolicy policy(4, /*synchronous=*/false);
  std::ostringstream csv;
  MetricsCollector metrics(&csv);
  Engine engine(config, tm, sps, acceptance, policy, metrics);
  RandomRun out;
  std::int64_t max_reserved = 0;
  const auto observer = [&](const Request& r, SimTime) {
    ++out.completed;
    CHECK(r.generated == r.spec.output_tokens);
    CHECK(r.first_token >= r.first_admitted);
    CHECK(r.first_admitted >= r.arrival);
    CHECK(r.done >= r.first_token);
    max_reserved = std::max(max_reserved, engine.kv_reserved());
  };
  OpenLoopWorkload workload(trace.requests);
  const auto stats = run_simulation(engine, workload, observer);
  out.rejected = stats.requests_rejected_kv;
  out.trace_size = static_cast<std::int64_t>(trace.requests.size());
  CHECK(stats.requests_submitted == out.trace_size);
  for (const auto& r : trace.requests) {
    if (r.prompt_tokens + r.output_tokens + 8 <= kv_capacity)
      out.expected_tokens += r.output_tokens;
  }
  out.counters = metrics.counters();
  out.csv = csv.str();
  CHECK(max_reserved <= kv_capacity);
  CHECK(engine.idle());
  CHECK(engine.outstanding_tokens() == 0);
  return out;
}

}  // namespace

TEST_CASE("conservation under KV pressure: tokens, completions, capacity, preemptions") {
  for (auto mode : {PrefillMode::kChunked, PrefillMode::kSeparate}) {
    const RandomRun run = random_run(7, 6000, mode, 512);
    INFO("prefill mode " << static_cast<int>(mode));
    CHECK(run.counters.output_tokens == run.expected_tokens);
    CHECK(run.completed + run.rejected == run.trace_size);  // every admitted request completes
    CHECK(run.counters.kv_peak_reserved <= 6000);
    CHECK(run.counters.preemptions > 0);  // this configuration is tight enough to preempt
    CHECK(run.counters.requests_completed == run.completed);
  }
}

TEST_CASE("same seed gives the same per-request output, another seed differs") {
  const RandomRun a = random_run(3, 200'000, PrefillMode::kChunked, 8192);
  const RandomRun b = random_run(3, 200'000, PrefillMode::kChunked, 8192);
  const RandomRun c = random_run(4, 200'000, PrefillMode::kChunked, 8192);
  CHECK(a.csv == b.csv);
  CHECK(a.csv != c.csv);
  CHECK(a.counters.preemptions == 0);
}
