// The engine hands a policy the `live` belief at its step's actual shape: with one request (its
// mean context is its context), 1 / SPS_live(B) at the B the policy chose is exactly the decode
// step's duration, so the run's end time is the prefill step plus those durations. On the
// analytic H100 / Qwen3-8B model (CUDA-graph padding, KV and attention terms all non-zero).
#include <cmath>
#include <numeric>

#include <catch2/catch.hpp>

#include "policies/static_policy.hpp"
#include "profiles/live_sps.hpp"
#include "profiles/profile_io.hpp"
#include "sim/acceptance/position_bernoulli_model.hpp"
#include "sim/engine.hpp"
#include "sim/simulation.hpp"

using namespace sparksim;

namespace {

// Full block every step, and a note of what the live table said at the chosen B.
class RecordingPolicy final : public VerificationPolicy {
 public:
  explicit RecordingPolicy(int gamma) : inner_(gamma, /*synchronous=*/false) {}
  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override {
    inner_.schedule(view, sps, lengths);
    const std::int64_t b =
        view.requests + std::accumulate(lengths.begin(), lengths.begin() + view.requests, 0);
    step_ns.push_back(1e9 / sps.steps_per_s(b));
    max_tokens.push_back(sps.max_tokens());
  }
  bool synchronous() const override { return false; }
  std::vector<double> step_ns;
  std::vector<std::int64_t> max_tokens;

 private:
  StaticPolicy inner_;
};

}  // namespace

TEST_CASE("live: the policy's table at its chosen B is the engine's step duration") {
  const Profile profile =
      load_profile(std::string(SPARKSIM_SOURCE_DIR) + "/profiles/analytic/h100-sxm/qwen3-8b.json");
  const TimeModel model(profile);
  const SpsTable static_sps(profile.sps, 4096);
  LiveSps live(model);
  EngineConfig config;
  config.drafter = DrafterSpec{DrafterFamily::kDspark, 7, "dspark-7"};
  config.kv_capacity_tokens = 1'000'000;
  PositionBernoulliModel acceptance(0.7, 7, 3);
  RecordingPolicy policy(7);
  MetricsCollector metrics(nullptr);
  Engine engine(config, model, static_sps, acceptance, policy, metrics);
  engine.use_live_sps(&live);
  const std::vector<RequestSpec> trace = {{0, 500, 60, Domain::kChat}};
  OpenLoopWorkload workload(trace);
  const SimulationStats stats = run_simulation(engine, workload);

  REQUIRE(policy.step_ns.size() >= 8);
  CHECK(live.refills() == static_cast<std::int64_t>(policy.step_ns.size()));
  for (const std::int64_t m : policy.max_tokens) CHECK(m == 1 * (7 + 1) + 1);
  // The prefill step: 500 prompt tokens, 500 x 250 attention pairs, no draft.
  BatchShape prefill;
  prefill.prefill_tokens = 500;
  prefill.prefill_attention_pairs = 500 * 250;
  const double decode_ns = std::accumulate(policy.step_ns.begin(), policy.step_ns.end(), 0.0);
  CHECK(static_cast<double>(stats.end_time) ==
        Approx(static_cast<double>(model.verify_time(prefill)) + decode_ns).epsilon(1e-12));
  // The static table (reference shape) would have claimed other step times.
  CHECK(std::abs(1e9 / static_sps.steps_per_s(8) - policy.step_ns.front()) > 1000.0);
}
