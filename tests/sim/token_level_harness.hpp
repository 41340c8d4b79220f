// Drives a TokenLevelModel without an engine: R requests, step after step, each step drafted,
// decided by a callback (the "policy") and verified, with every committed token tallied. The
// token-level tests share it; it mirrors the engine's call order (draft → decide → on_verified).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sim/acceptance/token_level/token_level_model.hpp"
#include "sim/acceptance/token_level/token_level_spec.hpp"

namespace sparksim::testing {

// Tallies (previous → token) for every committed token of a verification step, and (anchor →
// first token) for the first one of each step.
class TokenCounts final : public TokenCommitObserver {
 public:
  explicit TokenCounts(int vocab)
      : vocab(vocab),
        transitions(static_cast<std::size_t>(vocab) * vocab),
        first(static_cast<std::size_t>(vocab) * vocab) {}
  void on_committed(std::uint64_t, int previous, std::span<const int> tokens,
                    bool speculative) override {
    if (!speculative) return;
    ++first[static_cast<std::size_t>(previous) * vocab + tokens[0]];
    int from = previous;
    for (int t : tokens) {
      ++transitions[static_cast<std::size_t>(from) * vocab + t];
      from = t;
    }
  }
  int vocab;
  std::vector<std::int64_t> transitions, first;
};

// What a decision callback sees for one step: the confidences (R × γ), the hidden outcomes (for
// deliberately cheating test policies), and where to write the lengths.
using Decide = std::function<void(std::span<const float> confidences, std::span<const int> hidden,
                                  std::span<int> lengths)>;

struct StepStats {
  std::vector<std::int64_t> reached, accepted;  // per position k (index k-1), full-depth outcome
};

// Runs `steps` steps of `requests` requests (ids 0..R-1) through `model`. Returns the
// full-depth acceptance counts per position (reached: all earlier positions accepted).
inline StepStats run_steps(TokenLevelModel& model, int requests, int steps, const Decide& decide) {
  const int gamma = model.gamma();
  std::vector<AcceptanceState> states(static_cast<std::size_t>(requests));
  std::vector<DraftSlot> slots(static_cast<std::size_t>(requests));
  for (int r = 0; r < requests; ++r) {
    slots[r].request_id = static_cast<std::uint64_t>(r);
    slots[r].state = &states[r];
    model.init_request(slots[r].request_id, Domain::kChat, states[r]);
  }
  std::vector<float> confidences(static_cast<std::size_t>(requests) * gamma);
  std::vector<int> hidden(static_cast<std::size_t>(requests));
  std::vector<int> lengths(static_cast<std::size_t>(requests));
  std::vector<std::int64_t> generated(static_cast<std::size_t>(requests), 0);
  StepStats stats{std::vector<std::int64_t>(gamma), std::vector<std::int64_t>(gamma)};
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < requests; ++r) {
      slots[r].decode_step = s;
      slots[r].generated = generated[r];
    }
    model.draft(slots, gamma, confidences, hidden);
    for (int r = 0; r < requests; ++r) {
      for (int k = 1; k <= gamma && hidden[r] >= k - 1; ++k) {
        ++stats.reached[k - 1];
        if (hidden[r] >= k) ++stats.accepted[k - 1];
      }
    }
    std::fill(lengths.begin(), lengths.end(), -1);
    decide(confidences, hidden, lengths);
    model.on_verified(slots, lengths);
    for (int r = 0; r < requests; ++r) generated[r] += std::min(lengths[r], hidden[r]) + 1;
  }
  return stats;
}

// The default token-level model (registry defaults) with another drafter, vocabulary, γ, ...
inline std::unique_ptr<TokenLevelModel> make_model(const std::string& spec, int gamma,
                                                   std::uint64_t seed) {
  return make_token_level_model(parse_token_level_spec(NamedSpec::parse(spec, "--acceptance")),
                                gamma, seed);
}

}  // namespace sparksim::testing
