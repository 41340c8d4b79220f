// The policy table. Adding a policy: one file pair plus one row here; the registry conformance
// test (tests/policies/policy_registry_test.cpp) then exercises it automatically.
// Every policy takes `sync=auto|on|off`: whether each step pays the profile's host scheduling
// overhead (on) or hides it behind the previous step (off); `auto` is the policy's own nature,
// synchronous exactly when it must see the current step's drafts (or the previous step's outcome)
// on the host before the verify launch.
#include "policies/policy_registry.hpp"

#include <array>

#include "common/input_error.hpp"
#include "policies/async_topk_policy.hpp"
#include "policies/goodput_policy.hpp"
#include "policies/greedy_policy.hpp"
#include "policies/oracle_policy.hpp"
#include "policies/retrospective_policy.hpp"
#include "policies/static_policy.hpp"
#include "policies/threshold_policy.hpp"

namespace sparksim {

namespace {

bool read_sync(const NamedSpec& spec, bool by_default) {
  const std::string sync = spec.get_choice("sync", "auto", {"auto", "on", "off"});
  return sync == "auto" ? by_default : sync == "on";
}

std::unique_ptr<VerificationPolicy> make_static(const NamedSpec& spec, const PolicyContext& ctx) {
  const auto k = spec.get_int("k", 1, 0, ctx.gamma);
  const bool sync = read_sync(spec, false);
  spec.reject_unknown_keys();
  return std::make_unique<StaticPolicy>(static_cast<int>(k), sync);
}

std::unique_ptr<VerificationPolicy> make_threshold(const NamedSpec& spec,
                                                   const PolicyContext& /*ctx*/) {
  const double t = spec.get_double("t", 0.5, 0.0, 1.0);
  const std::string mode = spec.get_choice("mode", "raw", {"raw", "survival"});
  const bool sync = read_sync(spec, true);
  spec.reject_unknown_keys();
  return std::make_unique<ThresholdPolicy>(
      t, mode == "raw" ? ThresholdPolicy::Mode::kRaw : ThresholdPolicy::Mode::kSurvival, sync);
}

std::unique_ptr<VerificationPolicy> make_greedy(const NamedSpec& spec,
                                                const PolicyContext& /*ctx*/) {
  const bool sync = read_sync(spec, true);
  spec.reject_unknown_keys();
  return std::make_unique<GreedyPolicy>(sync);
}

std::unique_ptr<VerificationPolicy> make_async_topk(const NamedSpec& spec,
                                                    const PolicyContext& ctx) {
  const auto lag = spec.get_int("lag", 2, 1, 64);
  const bool sync = read_sync(spec, false);
  spec.reject_unknown_keys();
  return std::make_unique<AsyncTopKPolicy>(ctx.gamma, static_cast<int>(lag), sync);
}

std::unique_ptr<VerificationPolicy> make_retrospective(const NamedSpec& spec,
                                                       const PolicyContext& /*ctx*/) {
  const bool sync = read_sync(spec, true);
  spec.reject_unknown_keys();
  return std::make_unique<RetrospectivePolicy>(sync);
}

std::unique_ptr<VerificationPolicy> make_goodput(const NamedSpec& spec,
                                                 const PolicyContext& /*ctx*/) {
  const double prior = spec.get_double("prior", 0.7, 0.0, 1.0);
  const double ema = spec.get_double("ema", 0.05, 1e-6, 1.0);
  const bool sync = read_sync(spec, true);
  spec.reject_unknown_keys();
  return std::make_unique<GoodputPolicy>(prior, ema, sync);
}

std::unique_ptr<VerificationPolicy> make_oracle(const NamedSpec& spec,
                                                const PolicyContext& /*ctx*/) {
  const bool sync = read_sync(spec, true);
  spec.reject_unknown_keys();
  return std::make_unique<OraclePolicy>(sync);
}

// Columns: name, description, lossless by construction, sees hidden outcome, factory,
// confidence-driven.
const std::array<PolicyRow, 7> kPolicies = {{
    {"static",
     "every request verifies k draft tokens (k+1 target tokens); static:k=1 with mtp1 is the "
     "MTP-1 baseline, static:k=gamma full-block verification; k in [0, gamma], default 1; "
     "async by default (needs nothing from the step)",
     true, false, &make_static, false},
    {"threshold",
     "cut each block at the first position whose raw confidence c_k is below t (mode=raw, the "
     "published offline diagnostic) or whose cumulative survival prod c_i is below t "
     "(mode=survival); load-blind; t in [0, 1], default 0.5; sync by default",
     true, false, &make_threshold, true},
    {"greedy",
     "DSpark Algorithm 1: admit drafts by survival (ties: earlier position, lower request id) "
     "while Theta = tau * SPS(B) improves, stop at the first admission that does not (the early "
     "stop keeps it lossless); sync by default (reads this step's confidences)",
     true, false, &make_greedy, true},
    {"async-topk",
     "DSpark production scheduler: capacity K from the survivals of `lag` steps earlier (default "
     "2; requests newer than that count as survival 1) by global search over the whole admission "
     "path, no early stop; then the K highest current survivals are verified; async by default "
     "(K is ready before the drafts)",
     true, false, &make_async_topk, true},
    {"retrospective",
     "UNSAFE baseline (paper's Appendix A): the global search without early stop on this step's "
     "realised confidences, so admitting draft j can depend on draft j itself; sync by default",
     false, false, &make_retrospective, true},
    {"goodput",
     "SmartSpec-style: one proposal length k for the whole batch maximising R * E_k(alpha) * "
     "SPS(R (1+k)); alpha = moving average of observed acceptance (from context growth), ema "
     "weight per step (default 0.05), prior alpha (default 0.7); ignores confidences; sync by "
     "default",
     true, false, &make_goodput, false},
    {"oracle",
     "UNSAFE upper bound: verifies exactly the drafts the target will accept (reads the hidden "
     "outcome); sync by default, sync=off for the fully idealised bound",
     false, true, &make_oracle, false},
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
  const PolicyRow& row = find_policy(spec);
  // γ = 0 (`--drafter none`): there are no drafts to choose from, so every policy verifies none
  // and nothing waits on the host (the name is still checked, so sweeps keep one policy list).
  if (ctx.gamma == 0) return std::make_unique<StaticPolicy>(0, false);
  return row.make(spec, ctx);
}

std::string describe_policies() {
  std::string out;
  for (const auto& row : kPolicies) {
    out += std::string(row.name) + (row.lossless_by_construction ? "  [lossless]" : "  [UNSAFE]") +
           "\n    " + std::string(row.description) + "\n";
  }
  out +=
      "every policy also takes sync=auto|on|off: on = pays the profile's host scheduling overhead "
      "every step (synchronous), off = hides it, auto = the policy's default above\n";
  return out;
}

}  // namespace sparksim
