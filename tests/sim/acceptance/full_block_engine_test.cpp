// The published figures measured the way the issue states them: the real engine with the real
// `static:k=γ` policy (full-block verification) and the default acceptance model, for every
// (target, drafter) pair. calibrated_model_test checks the same numbers on the model alone; this
// test shows the engine hands the model consistent steps and commits what it drafts.
#include <sstream>

#include <catch2/catch.hpp>

#include "../test_profiles.hpp"
#include "policies/static_policy.hpp"
#include "published_data.hpp"
#include "sim/acceptance/calibrated_model.hpp"
#include "sim/engine.hpp"
#include "sim/simulation.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {

// Forwards to the model and counts, per verified slot, the accepted prefix (reached[k]: steps
// that accepted at least k drafts) and the lengths the policy chose.
class FullBlockCounter final : public AcceptanceModel {
 public:
  explicit FullBlockCounter(AcceptanceModel& inner, int gamma)
      : reached(static_cast<std::size_t>(gamma) + 1, 0), inner_(inner) {}
  void init_request(std::uint64_t id, Domain d, AcceptanceState& s) override {
    inner_.init_request(id, d, s);
  }
  void draft(std::span<const DraftSlot> slots, int gamma, std::span<float> c,
             std::span<int> hidden) override {
    inner_.draft(slots, gamma, c, hidden);
    hidden_.assign(hidden.begin(), hidden.begin() + static_cast<std::ptrdiff_t>(slots.size()));
  }
  void on_verified(std::span<const DraftSlot> slots, std::span<const int> lengths) override {
    for (std::size_t r = 0; r < slots.size(); ++r) {
      if (lengths[r] != static_cast<int>(reached.size()) - 1) ++not_full_block;
      for (int k = 0; k <= hidden_[r]; ++k) ++reached[static_cast<std::size_t>(k)];
    }
  }
  double tau() const {
    double t = 1.0;
    for (std::size_t k = 1; k < reached.size(); ++k) {
      t += static_cast<double>(reached[k]) / static_cast<double>(reached[0]);
    }
    return t;
  }
  double conditional(int k) const {
    return static_cast<double>(reached[static_cast<std::size_t>(k)]) /
           static_cast<double>(reached[static_cast<std::size_t>(k - 1)]);
  }

  std::vector<std::int64_t> reached;
  std::int64_t not_full_block = 0;

 private:
  AcceptanceModel& inner_;
  std::vector<int> hidden_;
};

// `requests` requests of `output_tokens` in `domain`, all arriving at 0, through the engine under
// static:k=γ with the calibrated model for (drafter, target).
FullBlockCounter run_engine(const DrafterSpec& drafter, const std::string& target, Domain domain,
                            int requests, std::int64_t output_tokens) {
  CalibratedModelConfig config;
  config.curves = published_mean_curves(drafter, target);
  config.gamma = drafter.gamma;
  config.seed = 11;
  CalibratedAcceptanceModel model(config);
  FullBlockCounter counter(model, drafter.gamma);
  const Profile profile = testing::constant_step_profile(1'000.0);
  const TimeModel time_model(profile);
  const SpsTable sps(profile.sps, 4096);
  StaticPolicy policy(drafter.gamma, /*synchronous=*/false);
  std::ostringstream csv;
  MetricsCollector metrics(&csv);
  EngineConfig engine_config;
  engine_config.drafter = drafter;
  engine_config.kv_capacity_tokens = 100'000'000;
  Engine engine(engine_config, time_model, sps, counter, policy, metrics);
  std::vector<RequestSpec> trace(static_cast<std::size_t>(requests),
                                 RequestSpec{0, 16, output_tokens, domain});
  OpenLoopWorkload workload(trace);
  run_simulation(engine, workload);
  // The engine's own τ truncates the last step of each request at its output length, so it is
  // at most the full-block τ and within γ tokens per request of it.
  const auto& c = metrics.counters();
  REQUIRE(c.request_steps == counter.reached[0]);
  const double engine_tau =
      static_cast<double>(c.decode_committed) / static_cast<double>(c.request_steps);
  CHECK(engine_tau <= counter.tau() + 1e-12);
  CHECK(engine_tau >= counter.tau() - static_cast<double>(requests * drafter.gamma) /
                                          static_cast<double>(c.request_steps));
  return counter;
}

DrafterSpec named(DrafterFamily f, int gamma) {
  if (f == DrafterFamily::kMtp1) return {f, 1, "mtp1"};
  return {f, gamma, std::string(drafter_family_name(f)) + "-" + std::to_string(gamma)};
}

const std::array<Domain, 3> kDomains = {Domain::kMath, Domain::kCode, Domain::kChat};

}  // namespace

TEST_CASE(
    "static:k=gamma in the engine gives Table 1's tau within 3% for every target and drafter") {
  // Per (target, drafter, domain): 400 requests x 1000 tokens, >= 70k request-steps. The
  // per-step length's sd is < 0.8 τ and the latent state's autocorrelation inflates the variance
  // of the mean by < 2.5x, so the relative standard error is < 0.8 x 1.6 / √70k = 0.005 and 3% is
  // > 6 se: P(any of the 48 checks fails by chance) < 48 x 2e-9. Measured (seed 11): worst
  // deviation 0.53%.
  for (std::string_view target : published_targets()) {
    for (auto f : {DrafterFamily::kEagle3, DrafterFamily::kDflash, DrafterFamily::kDspark,
                   DrafterFamily::kMtp1}) {
      for (auto d : kDomains) {
        const FullBlockCounter c = run_engine(named(f, 7), std::string(target), d, 400, 1000);
        const double expected = f == DrafterFamily::kMtp1
                                    ? 1.0 + mtp1_acceptance(d)
                                    : published_table1_domain_tau(target, f, d);
        INFO(target << " " << named(f, 7).name << " " << domain_name(d) << ": τ " << c.tau()
                    << " vs published " << expected);
        CHECK(c.not_full_block == 0);
        CHECK(std::abs(c.tau() / expected - 1) < 0.03);
      }
    }
  }
}

TEST_CASE("static:k=7 in the engine gives Figure 2's conditional acceptance for Qwen3-4B") {
  // 1200 requests x 1000 tokens per (drafter, domain): the rarest denominator (eagle3 chat,
  // position 7) holds about 35k steps, so the binomial standard error is 0.0024, < 0.004 with
  // the autocorrelation inflation (< 2.5x). The mean curves are within 0.005 of Figure 2
  // (published_curves_test), leaving 0.015 > 3.75 se: P(false alarm) < 2e-4 per check, < 0.012
  // for all 63 (the seed is fixed, so the outcome is too). Measured: worst deviation 0.0045.
  for (auto f : {DrafterFamily::kEagle3, DrafterFamily::kDflash, DrafterFamily::kDspark}) {
    for (auto d : kDomains) {
      const FullBlockCounter c = run_engine(named(f, 7), "qwen3-4b", d, 1200, 1000);
      const auto fig2 = published_figure2(f, d);
      for (int k = 1; k <= 7; ++k) {
        INFO(drafter_family_name(f) << " " << domain_name(d) << " position " << k << ": "
                                    << c.conditional(k) << " vs Figure 2 " << fig2[k - 1]);
        CHECK(c.conditional(k) == Approx(fig2[static_cast<std::size_t>(k - 1)]).margin(0.02));
      }
    }
  }
}
