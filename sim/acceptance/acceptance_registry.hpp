// The registry of acceptance models (`--acceptance NAME[:key=value,...]`): one explicit table.
// Each model is built for the run's drafter and seed; an unknown name lists the valid ones.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/named_spec.hpp"
#include "profiles/drafter.hpp"
#include "sim/acceptance/acceptance_model.hpp"

namespace sparksim {

// What a model is built for: acceptance depends on the target model (the profile's), the drafter
// and the seed of the run.
struct AcceptanceContext {
  DrafterSpec drafter;
  std::string target;  // e.g. "qwen3-8b" (Profile::target)
  std::uint64_t seed = 1;
  // False: check the spec fully but skip the Monte Carlo tuning a head target (auc=, ece=) asks
  // for (about a second of sampling), keeping the default head. For the spec fuzzer, whose
  // subject is the parser; the tuning itself is tested in tests/sim/acceptance/.
  bool tune_heads = true;
};

struct AcceptanceRow {
  std::string_view name;
  std::string_view description;
  std::unique_ptr<AcceptanceModel> (*make)(const NamedSpec&, const AcceptanceContext&);
};

std::span<const AcceptanceRow> acceptance_registry();
// The row for spec.name(); throws InputError listing the valid names if there is none.
const AcceptanceRow& find_acceptance_model(const NamedSpec& spec);
std::unique_ptr<AcceptanceModel> make_acceptance_model(const NamedSpec& spec,
                                                       const AcceptanceContext& context);
std::string describe_acceptance_models();

}  // namespace sparksim
