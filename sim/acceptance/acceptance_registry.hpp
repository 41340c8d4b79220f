// The registry of acceptance models (`--acceptance NAME[:key=value,...]`): one explicit table.
// Each model is built for the run's drafter and seed; an unknown name lists the valid ones.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/named_spec.hpp"
#include "sim/acceptance/acceptance_context.hpp"
#include "sim/acceptance/acceptance_model.hpp"

namespace sparksim {

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
