// Parsing of token-level specs.
#include "sim/acceptance/token_level/token_level_spec.hpp"

#include <limits>
#include <string>

#include "common/input_error.hpp"

namespace sparksim {

TokenLevelConfig parse_token_level_spec(const NamedSpec& spec) {
  TokenLevelConfig c;
  c.lm.vocab = static_cast<int>(spec.get_int("vocab", c.lm.vocab, 2, kMaxToyVocab));
  c.lm.support = static_cast<int>(spec.get_int("support", c.lm.support, 1, kMaxToyVocab));
  c.lm.embed_dim = static_cast<int>(spec.get_int("dim", c.lm.embed_dim, 1, kMaxToyVocab));
  c.lm.sharp_min = spec.get_double("sharp_min", c.lm.sharp_min, 0.0, 100.0);
  c.lm.sharp_max = spec.get_double("sharp_max", c.lm.sharp_max, 0.0, 100.0);
  const auto lm_seed = spec.get_int("lm_seed", 1, 0, std::numeric_limits<std::int64_t>::max());
  c.lm.seed = static_cast<std::uint64_t>(lm_seed);
  c.drafter.kind = parse_toy_drafter(spec.get_choice(
      "drafter", "markov", {"parallel", "markov", "autoregressive", "adversarial"}));
  c.drafter.noise = spec.get_double("noise", c.drafter.noise, 0.0, 10.0);
  c.drafter.rank = static_cast<int>(spec.get_int("rank", c.drafter.rank, 1, kMaxToyVocab));
  c.drafter.seed = c.lm.seed;
  c.model.confidence.noise = spec.get_double("conf_noise", 0.0, 0.0, 10.0);
  c.model.confidence.temperature = spec.get_double("conf_temp", 1.0, 0.01, 100.0);
  spec.reject_unknown_keys();
  const std::string where = "--acceptance: '" + spec.text() + "': ";
  if (c.lm.support > c.lm.vocab) {
    throw InputError(where + "support=" + std::to_string(c.lm.support) +
                     " exceeds vocab=" + std::to_string(c.lm.vocab));
  }
  if (c.drafter.rank > c.lm.vocab) {
    throw InputError(where + "rank=" + std::to_string(c.drafter.rank) +
                     " exceeds vocab=" + std::to_string(c.lm.vocab));
  }
  if (c.lm.embed_dim > c.lm.vocab) {
    throw InputError(where + "dim=" + std::to_string(c.lm.embed_dim) +
                     " exceeds vocab=" + std::to_string(c.lm.vocab));
  }
  if (c.lm.sharp_min > c.lm.sharp_max) throw InputError(where + "sharp_min exceeds sharp_max");
  return c;
}

std::unique_ptr<TokenLevelModel> make_token_level_model(const TokenLevelConfig& config, int gamma,
                                                        std::uint64_t seed) {
  ToyTargetLm target = ToyTargetLm::generate(config.lm);
  ToyDrafter drafter = ToyDrafter::build(target, gamma, config.drafter);
  return std::make_unique<TokenLevelModel>(std::move(target), std::move(drafter), gamma, seed,
                                           config.model);
}

std::unique_ptr<AcceptanceModel> make_token_level_acceptance(const NamedSpec& spec,
                                                             const AcceptanceContext& context) {
  return make_token_level_model(parse_token_level_spec(spec), context.drafter.gamma, context.seed);
}

}  // namespace sparksim
