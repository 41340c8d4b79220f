// The registry of verification policies: one explicit table (no static-constructor registration).
// Each row names a policy, describes it in one line, and states whether it is lossless by
// construction (the losslessness validator checks that claim) and whether it cheats by seeing the
// hidden outcome. `--policy help` prints the table; an unknown name lists the valid ones.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/named_spec.hpp"
#include "policies/verification_policy.hpp"

namespace sparksim {

// What a policy may know when it is built: the drafter's block size.
struct PolicyContext {
  int gamma = 1;
};

struct PolicyRow {
  std::string_view name;
  std::string_view description;
  bool lossless_by_construction;
  bool sees_hidden_outcome;  // unsafe baselines only: the engine fills BatchView::hidden_accepted
  std::unique_ptr<VerificationPolicy> (*make)(const NamedSpec&, const PolicyContext&);
  // Lengths come from the drafted confidences with default parameters: all-zero confidences give
  // ℓ = 0 and no request verifies a position whose survival is 0 (the conformance test checks it).
  bool confidence_driven = false;
};

std::span<const PolicyRow> policy_registry();

// Finds the row for spec.name(); throws InputError listing valid names if there is none.
const PolicyRow& find_policy(const NamedSpec& spec);

// Parses, validates (all parameters known and in range) and builds a policy.
std::unique_ptr<VerificationPolicy> make_policy(const NamedSpec& spec, const PolicyContext& ctx);

// One line per row: name, lossless flag, description. For `--policy help`.
std::string describe_policies();

}  // namespace sparksim
