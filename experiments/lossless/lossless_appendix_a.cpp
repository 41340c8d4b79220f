// One-step trials of the Appendix A world: draft, let the policy decide, verify, record x_out[0].
#include "experiments/lossless/lossless_appendix_a.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "common/named_spec.hpp"
#include "policies/policy_registry.hpp"
#include "sim/acceptance/token_level/token_level_model.hpp"

namespace sparksim {

namespace {

constexpr int kA = 0, kS = 2;  // B = 1

}  // namespace

// Target: after S or A, (0.7, 0.3); after B, A surely. Draft position 1: (0.5, 0.5) from any
// anchor; position 2: (0.6, 0.4) after A (so c_2 = 0.6 + 0.3 = 0.9) and B surely after B (so c_2
// = 0: disjoint from the target's A).
TokenLevelModel make_appendix_a_model(std::uint64_t seed) {
  std::vector<double> target = {
      0.7, 0.3, 0.0,  // after A
      1.0, 0.0, 0.0,  // after B
      0.7, 0.3, 0.0,  // after S
  };
  std::vector<double> position1 = {0.5, 0.5, 0.0, 0.5, 0.5, 0.0, 0.5, 0.5, 0.0};
  std::vector<double> position2 = {0.6, 0.4, 0.0, 0.0, 1.0, 0.0, 0.5, 0.5, 0.0};
  TokenLevelOptions options;
  options.start_token = kS;
  return TokenLevelModel(ToyTargetLm(std::move(target), 3),
                         ToyDrafter::tabular({std::move(position1), std::move(position2)}, 3),
                         kAppendixAGamma, seed, options);
}

namespace {

class FirstToken final : public TokenCommitObserver {
 public:
  void on_committed(std::uint64_t, int, std::span<const int> tokens, bool speculative) override {
    if (speculative) first = tokens[0];
  }
  int first = -1;
};

}  // namespace

AppendixAResult run_appendix_a(const std::string& policy_spec, std::int64_t trials,
                               std::uint64_t seed) {
  const NamedSpec spec = NamedSpec::parse(policy_spec, "--policy");
  const PolicyRow& row = find_policy(spec);
  auto policy = make_policy(spec, PolicyContext{kAppendixAGamma});
  TokenLevelModel model = make_appendix_a_model(seed);
  FirstToken observer;
  model.set_observer(&observer);
  const SpsTable sps(std::vector<double>{1.0, 0.5, 0.45});

  AppendixAResult result;
  result.policy = policy_spec;
  result.trials = trials;
  AcceptanceState state{};
  std::vector<float> confidences(kAppendixAGamma);
  std::vector<int> hidden(1), lengths(1);
  const std::vector<std::int64_t> context = {1};
  for (std::int64_t trial = 0; trial < trials; ++trial) {
    // A fresh request per trial: every trial starts from the prompt token S.
    const auto id = static_cast<std::uint64_t>(trial);
    const std::vector<std::uint64_t> ids = {id};
    model.init_request(id, Domain::kChat, state);
    const DraftSlot slot{id, Domain::kChat, 0, 0, &state};
    model.draft({&slot, 1}, kAppendixAGamma, confidences, hidden);
    BatchView view;
    view.gamma = kAppendixAGamma;
    view.requests = 1;
    view.request_ids = ids;
    view.confidences = confidences;
    view.context_tokens = context;
    if (row.sees_hidden_outcome) view.hidden_accepted = hidden;
    lengths[0] = -1;
    policy->schedule(view, sps, lengths);
    if (lengths[0] < 0 || lengths[0] > kAppendixAGamma) {
      throw std::logic_error("policy returned a length outside [0, 2]");
    }
    ++result.lengths[static_cast<std::size_t>(lengths[0])];
    model.on_verified({&slot, 1}, lengths);
    if (observer.first == kA) ++result.first_is_a;
    policy->on_request_left(id);
    model.forget(id);
  }
  const double n = static_cast<double>(trials);
  result.p_a = static_cast<double>(result.first_is_a) / n;
  const double z = 3.2905267314919255;  // two-sided 99.9%
  const double centre = (result.p_a + z * z / (2 * n)) / (1 + z * z / n);
  const double half =
      z * std::sqrt(result.p_a * (1 - result.p_a) / n + z * z / (4 * n * n)) / (1 + z * z / n);
  result.ci_low = centre - half;
  result.ci_high = centre + half;
  const double zscore = (result.p_a - 0.7) / std::sqrt(0.7 * 0.3 / n);
  result.p_value = std::erfc(std::abs(zscore) / std::sqrt(2.0));
  return result;
}

}  // namespace sparksim
