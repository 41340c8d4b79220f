// The acceptance-model table. New models (heterogeneous, replay, token-level) add a row here.
#include "sim/acceptance/acceptance_registry.hpp"

#include <array>

#include "common/input_error.hpp"
#include "sim/acceptance/acceptance_factories.hpp"
#include "sim/acceptance/no_draft_model.hpp"
#include "sim/acceptance/position_bernoulli_model.hpp"
#include "sim/acceptance/token_level/token_level_spec.hpp"

namespace sparksim {

namespace {

std::unique_ptr<AcceptanceModel> make_bernoulli(const NamedSpec& spec,
                                                const AcceptanceContext& context) {
  const double p = spec.get_double("p", -1.0, 0.0, 1.0);
  spec.reject_unknown_keys();
  if (p >= 0.0) {
    return std::make_unique<PositionBernoulliModel>(p, context.drafter.gamma, context.seed);
  }
  return std::make_unique<PositionBernoulliModel>(context.drafter, context.seed);
}

const std::array<AcceptanceRow, 4> kModels = {{
    {"bernoulli",
     "independent per-position acceptance with the published per-domain curves of the drafter "
     "(DSpark paper Fig. 2; MTP-1 0.875); bernoulli:p=X uses X at every position",
     &make_bernoulli},
    {"calibrated", kCalibratedDescription, &make_calibrated_acceptance},
    {"replay", kReplayDescription, &make_replay_acceptance},
    {"token-level",
     "exact token-level mode: a toy sparse Markov-chain target LM and a drafter built from it, "
     "true rejection sampling, real token sequences (slow; for the losslessness validator); "
     "keys: vocab=64, support=8, dim=8, sharp_min=1, sharp_max=8, lm_seed=1, "
     "drafter=parallel|markov|autoregressive|adversarial (markov), noise=0.35, rank=6, "
     "conf_noise=0, conf_temp=1",
     &make_token_level_acceptance},
}};

}  // namespace

std::span<const AcceptanceRow> acceptance_registry() {
  return kModels;
}

const AcceptanceRow& find_acceptance_model(const NamedSpec& spec) {
  for (const auto& row : kModels) {
    if (row.name == spec.name()) return row;
  }
  std::string valid;
  for (const auto& row : kModels) valid += (valid.empty() ? "" : ", ") + std::string(row.name);
  throw InputError("--acceptance: unknown acceptance model '" + spec.name() + "'; valid: " + valid);
}

std::unique_ptr<AcceptanceModel> make_acceptance_model(const NamedSpec& spec,
                                                       const AcceptanceContext& context) {
  const AcceptanceRow& row = find_acceptance_model(spec);
  // Without a drafter no acceptance behaviour exists: every model reduces to "nothing drafted"
  // (the name is still checked, so a sweep over drafters keeps one --acceptance for all).
  if (!context.drafter.speculates()) return std::make_unique<NoDraftModel>();
  return row.make(spec, context);
}

std::string describe_acceptance_models() {
  std::string out;
  for (const auto& row : kModels) {
    out += std::string(row.name) + "\n    " + std::string(row.description) + "\n";
  }
  return out;
}

}  // namespace sparksim
