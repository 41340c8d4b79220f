// `--acceptance token-level:key=value,...`: the exact token-level mode's parameters, their
// defaults and ranges, parsed from a NamedSpec, and the factory the acceptance registry calls.
// Keys: vocab, support, dim, sharp_min, sharp_max, lm_seed (the toy target); drafter (parallel |
// markov | autoregressive | adversarial), noise, rank (the drafter); conf_noise, conf_temp (the
// confidence the policy sees). The run's --seed drives sampling; lm_seed fixes the models, so
// changing --seed resamples tokens from the same target and drafter.
#pragma once

#include <cstdint>
#include <memory>

#include "common/named_spec.hpp"
#include "sim/acceptance/acceptance_context.hpp"
#include "sim/acceptance/acceptance_model.hpp"
#include "sim/acceptance/token_level/token_level_model.hpp"

namespace sparksim {

struct TokenLevelConfig {
  ToyLmOptions lm;
  ToyDrafterOptions drafter;
  TokenLevelOptions model;
};

// Reads every key (InputError for a malformed, out-of-range or unknown one).
TokenLevelConfig parse_token_level_spec(const NamedSpec& spec);

// Builds the target, the drafter for `gamma` positions and the model.
std::unique_ptr<TokenLevelModel> make_token_level_model(const TokenLevelConfig& config, int gamma,
                                                        std::uint64_t seed);

// The registry's factory: γ from the run's drafter, sampling seeded by the run's seed.
std::unique_ptr<AcceptanceModel> make_token_level_acceptance(const NamedSpec& spec,
                                                             const AcceptanceContext& context);

}  // namespace sparksim
