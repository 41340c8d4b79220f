// The policy table. Adding a policy: one file pair plus one row here; the registry conformance
// test (tests/policies/policy_registry_test.cpp) then exercises it automatically.
#include "policies/policy_registry.hpp"

#include <array>

#include "common/input_error.hpp"
#include "policies/static_policy.hpp"

namespace sparksim {

namespace {

std::unique_ptr<VerificationPolicy> make_static(const NamedSpec& spec, const PolicyContext& ctx) {
  const auto k = spec.get_int("k", 1, 0, ctx.gamma);
  spec.reject_unknown_keys();
  return std::make_unique<StaticPolicy>(static_cast<int>(k));
}

const std::array<PolicyRow, 1> kPolicies = {{
    {"static",
     "every request verifies k draft tokens (k+1 target tokens); static:k=1 with mtp1 is the "
     "MTP-1 baseline; parameters: k in [0, gamma], default 1",
     true, false, &make_static},
}};

}  // namespace

std::span<const PolicyRow> policy_registry() {
  return kPolicies;
}

const PolicyRow& find_policy(const NamedSpec& spec) {
  for (const auto& row : kPolicies) {
    if (row.name == spec.name()) return row;
  }
  std::string valid;
  for (const auto& row : kPolicies) valid += (valid.empty() ? "" : ", ") + std::string(row.name);
  throw InputError("--policy: unknown policy '" + spec.name() + "'; valid: " + valid +
                   " (--policy help describes each)");
}

std::unique_ptr<VerificationPolicy> make_policy(const NamedSpec& spec, const PolicyContext& ctx) {
  return find_policy(spec).make(spec, ctx);
}

std::string describe_policies() {
  std::string out;
  for (const auto& row : kPolicies) {
    out += std::string(row.name) + (row.lossless_by_construction ? "  [lossless]" : "  [UNSAFE]") +
           "\n    " + std::string(row.description) + "\n";
  }
  return out;
}

}  // namespace sparksim
