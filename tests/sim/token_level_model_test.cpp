// The token-level mode's parts: the toy target (a valid sparse chain with its stationary law), the
// drafters (valid distributions), confidences (exact acceptance, or noisy as configured), the
// model's bookkeeping (what it commits, determinism, batch independence), its registry row, bad
// specs, and a run through the real engine.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "policies/static_policy.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/acceptance/token_level/rejection_sampler.hpp"
#include "sim/engine.hpp"
#include "sim/simulation.hpp"
#include "test_profiles.hpp"
#include "token_level_harness.hpp"

using namespace sparksim;

namespace {

void fill_static(std::span<const float>, std::span<const int>, std::span<int> lengths, int k) {
  std::fill(lengths.begin(), lengths.end(), k);
}

}  // namespace

TEST_CASE("toy target is a sparse irreducible chain with a stationary law") {
  ToyLmOptions o;
  o.vocab = 40;
  o.support = 5;
  const ToyTargetLm lm = ToyTargetLm::generate(o);
  double top_sum = 0;
  for (int s = 0; s < lm.vocab(); ++s) {
    const auto row = lm.next(s);
    CHECK(std::accumulate(row.begin(), row.end(), 0.0) == Approx(1.0).margin(1e-12));
    CHECK(lm.support(s).size() == 5);
    CHECK(lm.prob(s, (s + 1) % lm.vocab()) > 0);  // the successor keeps the chain irreducible
    top_sum += *std::max_element(row.begin(), row.end());
  }
  // Peaked: on average the top token carries about half the mass (real LMs: 0.4-0.7).
  CHECK(top_sum / lm.vocab() > 0.35);
  CHECK(top_sum / lm.vocab() < 0.8);
  const auto& pi = lm.stationary();
  for (int t = 0; t < lm.vocab(); ++t) {
    double next = 0;
    for (int s = 0; s < lm.vocab(); ++s) next += pi[s] * lm.prob(s, t);
    CHECK(next == Approx(pi[t]).margin(1e-9));
  }
  // Same options, same chain.
  const ToyTargetLm again = ToyTargetLm::generate(o);
  for (int s = 0; s < lm.vocab(); ++s) CHECK(lm.prob(s, 3) == again.prob(s, 3));
}

TEST_CASE("explicit target tables are validated") {
  CHECK_THROWS_AS(ToyTargetLm({0.5, 0.4, 0.0, 1.0}, 2), std::invalid_argument);
  CHECK_THROWS_AS(ToyTargetLm({1.5, -0.5, 0.0, 1.0}, 2), std::invalid_argument);
  CHECK_THROWS_AS(ToyTargetLm({1.0, 0.0, 1.0}, 2), std::invalid_argument);
  CHECK_NOTHROW(ToyTargetLm({1.0, 0.0, 0.3, 0.7}, 2));
}

TEST_CASE("every drafter's position distributions are distributions") {
  ToyLmOptions o;
  o.vocab = 20;
  o.support = 4;
  o.embed_dim = 5;
  const ToyTargetLm lm = ToyTargetLm::generate(o);
  std::vector<double> p(20);
  for (auto kind : {ToyDrafterKind::kParallel, ToyDrafterKind::kMarkov,
                    ToyDrafterKind::kAutoregressive, ToyDrafterKind::kAdversarial}) {
    ToyDrafterOptions d;
    d.kind = kind;
    d.rank = 3;
    const ToyDrafter drafter = ToyDrafter::build(lm, 5, d);
    for (int k = 1; k <= 5; ++k) {
      for (int anchor : {0, 7, 19}) {
        for (int previous : {0, 3, 19}) {
          drafter.distribution(k, anchor, previous, p);
          INFO(toy_drafter_name(kind)
               << " k " << k << " anchor " << anchor << " prev " << previous);
          CHECK(std::accumulate(p.begin(), p.end(), 0.0) == Approx(1.0).margin(1e-9));
          CHECK(*std::min_element(p.begin(), p.end()) >= 0.0);
        }
      }
    }
  }
  // The adversarial drafter puts 80% of its mass where the target never goes.
  ToyDrafterOptions d;
  d.kind = ToyDrafterKind::kAdversarial;
  ToyDrafter adversarial = ToyDrafter::build(lm, 2, d);
  adversarial.distribution(1, 4, 4, p);
  double off_support = 0;
  for (int t = 0; t < 20; ++t) off_support += lm.prob(4, t) == 0 ? p[t] : 0;
  CHECK(off_support == Approx(0.8));
}

TEST_CASE("confidences are the exact acceptance unless noise is configured") {
  auto exact = sparksim::testing::make_model("token-level:vocab=16,support=4,dim=4", 3, 9);
  auto noisy = sparksim::testing::make_model(
      "token-level:vocab=16,support=4,dim=4,conf_noise=0.5,conf_temp=0.5", 3, 9);
  AcceptanceState state{};
  exact->init_request(1, Domain::kMath, state);
  noisy->init_request(1, Domain::kMath, state);
  const DraftSlot slot{1, Domain::kMath, 0, 0, &state};
  std::vector<float> c_exact(3), c_noisy(3);
  std::vector<int> hidden(1);
  exact->draft({&slot, 1}, 3, c_exact, hidden);
  noisy->draft({&slot, 1}, 3, c_noisy, hidden);
  const auto alpha = exact->last_exact_acceptance(1);
  REQUIRE(alpha.size() == 3);
  for (int k = 0; k < 3; ++k) {
    CHECK(c_exact[k] == static_cast<float>(alpha[k]));
    CHECK(alpha[k] > 0.0);
    CHECK(alpha[k] <= 1.0);
  }
  // Same seed, same drafts: the noisy model's exact acceptance is the same; its confidence not.
  const auto alpha_noisy = noisy->last_exact_acceptance(1);
  for (int k = 0; k < 3; ++k) CHECK(alpha_noisy[k] == alpha[k]);
  CHECK(c_noisy != c_exact);

  // Temperature alone (no noise): c = σ(logit(α) / T) exactly; T = 0.5 is over-confident.
  auto hot =
      sparksim::testing::make_model("token-level:vocab=16,support=4,dim=4,conf_temp=0.5", 3, 9);
  hot->init_request(1, Domain::kMath, state);
  std::vector<float> c_hot(3);
  hot->draft({&slot, 1}, 3, c_hot, hidden);
  for (int k = 0; k < 3; ++k) {
    const double a = std::clamp(alpha[k], 1e-6, 1 - 1e-6);
    const double expected = 1.0 / (1.0 + std::pow((1 - a) / a, 2.0));
    CHECK(c_hot[k] == Approx(expected).epsilon(1e-6));
    if (alpha[k] > 0.5) CHECK(c_hot[k] >= c_exact[k]);
  }
}

TEST_CASE("each step commits min(length, accepted) + 1 tokens of the drafted block") {
  auto model = sparksim::testing::make_model("token-level:vocab=16", 4, 3);
  sparksim::testing::TokenCounts counts(16);
  model->set_observer(&counts);
  AcceptanceState state{};
  model->init_request(0, Domain::kChat, state);
  std::int64_t committed = 0;
  for (int step = 0; step < 50; ++step) {
    const DraftSlot slot{0, Domain::kChat, step, committed, &state};
    std::vector<float> c(4);
    std::vector<int> hidden(1), lengths = {step % 5};
    model->draft({&slot, 1}, 4, c, hidden);
    const std::size_t before = model->sequence(0)->size();
    model->on_verified({&slot, 1}, lengths);
    const auto added = static_cast<std::int64_t>(model->sequence(0)->size() - before);
    CHECK(added == std::min(lengths[0], hidden[0]) + 1);
    committed += added;
  }
  // Every committed token is a transition the target allows.
  for (int a = 0; a < 16; ++a) {
    for (int b = 0; b < 16; ++b) {
      if (model->target().prob(a, b) == 0) CHECK(counts.transitions[a * 16 + b] == 0);
    }
  }
}

TEST_CASE("token-level runs are deterministic and independent of the batch") {
  const auto sequences = [](int requests, std::uint64_t seed) {
    auto model = sparksim::testing::make_model("token-level:vocab=16,drafter=markov", 4, seed);
    sparksim::testing::run_steps(*model, requests, 40,
                                 [](std::span<const float> c, std::span<const int> h,
                                    std::span<int> l) { fill_static(c, h, l, 2); });
    std::vector<std::vector<int>> out;
    for (int r = 0; r < requests; ++r) out.push_back(*model->sequence(r));
    return out;
  };
  const auto a = sequences(6, 21);
  const auto b = sequences(6, 21);
  CHECK(a == b);
  // Request 2's tokens do not depend on how many others share its batch.
  const auto c = sequences(3, 21);
  CHECK(c[2] == a[2]);
  CHECK(sequences(6, 22) != a);
}

TEST_CASE("token-level registry row builds the model and rejects bad specs") {
  AcceptanceContext context;
  context.drafter = parse_drafter("dspark-5");
  context.seed = 3;
  const auto spec = NamedSpec::parse("token-level:vocab=32,drafter=parallel", "--acceptance");
  auto model = make_acceptance_model(spec, context);
  auto* token = dynamic_cast<TokenLevelModel*>(model.get());
  REQUIRE(token != nullptr);
  CHECK(token->gamma() == 5);
  CHECK(token->target().vocab() == 32);
  CHECK(token->drafter().kind() == ToyDrafterKind::kParallel);
  CHECK(describe_acceptance_models().find("token-level") != std::string::npos);
  for (const char* bad :
       {"token-level:drafter=lookahead", "token-level:vocab=1", "token-level:vocab=8,support=9",
        "token-level:vocab=8,rank=9", "token-level:sharp_min=3,sharp_max=2", "token-level:noise=-1",
        "token-level:conf_temp=0", "token-level:colour=red", "token-level:vocab=8,dim=9"}) {
    INFO(bad);
    CHECK_THROWS_AS(make_acceptance_model(NamedSpec::parse(bad, "--acceptance"), context),
                    InputError);
  }
}

TEST_CASE("token-level model runs inside the engine and commits what the engine commits") {
  const Profile profile = sparksim::testing::constant_step_profile(1000);
  const TimeModel time_model(profile);
  const SpsTable sps(profile.sps, 4096);
  TokenLevelConfig config =
      parse_token_level_spec(NamedSpec::parse("token-level:vocab=16", "--acceptance"));
  config.model.retain_sequences = true;
  auto model = make_token_level_model(config, 3, 4);
  StaticPolicy policy(2, false);
  MetricsCollector metrics(nullptr);
  EngineConfig engine_config;
  engine_config.drafter = parse_drafter("dspark-3");
  engine_config.kv_capacity_tokens = 1'000'000;
  engine_config.max_running = 4;
  Engine engine(engine_config, time_model, sps, *model, policy, metrics);
  std::vector<RequestSpec> specs(10);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    specs[i] = RequestSpec{static_cast<SimTime>(i) * 1000, 5, 20 + static_cast<std::int64_t>(i),
                           Domain::kCode};
  }
  std::vector<std::int64_t> generated(specs.size());
  OpenLoopWorkload workload(specs);
  run_simulation(engine, workload,
                 [&](const Request& r, SimTime) { generated[r.id] = r.generated; });
  for (std::uint64_t id = 0; id < specs.size(); ++id) {
    const auto* seq = model->sequence(id);
    REQUIRE(seq != nullptr);
    const auto output = static_cast<std::int64_t>(seq->size()) - 1;  // [0] is the prompt's
    CHECK(generated[id] == specs[id].output_tokens);
    // The model may run past the end on the last step by at most γ = 3 tokens.
    CHECK(output >= generated[id]);
    CHECK(output <= generated[id] + 3);
  }
}
