// The inputs a sensitivity study can vary, each mapped onto a knob the simulator already has:
// the calibrated acceptance model's keys (logit shift, named scenario, heterogeneity, confidence
// head AUC/ECE), cost multipliers on the profile (draft, verify, host overhead) and the scheduler's
// SPS belief. Numeric inputs take any value in their range; categorical ones (scenario, SPS
// belief) take their low or high choice. applied_inputs() turns one set of values into what a
// sweep runs: an edited SweepConfig and a RunOptions adjuster.
#pragma once

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "experiments/sweep/sweep_config.hpp"
#include "experiments/sweep/sweep_points.hpp"
#include "profiles/profile.hpp"

namespace sparksim {

enum class InputKind {
  kAcceptanceShift,     // calibrated:shift= (logit; nominal 0)
  kAcceptanceScenario,  // calibrated:scenario= (categorical; deepseek-v4-* targets)
  kAcceptanceSpread,    // calibrated:latent_sd= (per-step difficulty spread; nominal 0.90)
  kConfidenceAuc,       // calibrated:auc= (nominal: the head's default, not a set AUC)
  kConfidenceEce,       // calibrated:ece= (nominal: the head's default)
  kDraftCost,           // × the profile's draft time terms (nominal 1)
  kVerifyCost,          // × the profile's verify time terms and ÷ its SPS tables (nominal 1)
  kHostOverhead,        // × the profile's host_overhead_us (nominal 1)
  kSpsBelief,           // capture | live | reference (categorical)
  kPromptLength,        // × every request's prompt tokens (nominal 1)
  kOutputLength,        // × every request's output tokens (nominal 1)
  kArrivalCv,           // open-loop gaps re-drawn with this cv (nominal: the workload's own)
  kRoutingImbalance,    // MoE targets: hottest expert rank's load / mean (nominal 1.1)
};

struct InputKindInfo {
  InputKind kind;
  std::string_view name;  // as written in configs
  std::string_view what;  // for reports and docs
  bool categorical;
  double nominal;   // NaN: the model's default (the key is not set at nominal)
  double min, max;  // allowed values of a numeric input
};

// Every kind, in the order above.
const std::vector<InputKindInfo>& input_kinds();
// nullptr when `name` is not a kind.
const InputKindInfo* find_input_kind(std::string_view name);
// "acceptance_shift, acceptance_scenario, ...", for messages.
std::string input_kind_names();
// Whether `value` is one of a categorical kind's values (an SPS belief, a named acceptance
// scenario).
bool is_choice_of(const InputKindInfo& kind, const std::string& value);
// Whether the kind sets a key of the calibrated acceptance model (so it needs `calibrated`).
bool varies_acceptance_model(const InputKindInfo& kind);

// One declared input of a study.
struct SensitivityInput {
  const InputKindInfo* kind = nullptr;
  double low = 0, high = 0;             // numeric
  std::string low_choice, high_choice;  // categorical
  std::string label() const { return std::string(kind->name); }
  std::string low_text() const;
  std::string high_text() const;
};

// The value a categorical input takes at low (0) or high (1); NaN means nominal for every input.
inline constexpr double kAtLow = 0.0;
inline constexpr double kAtHigh = 1.0;
inline double nominal_value() {
  return std::numeric_limits<double>::quiet_NaN();
}

// What one evaluation runs.
struct AppliedInputs {
  SweepConfig config;
  RunOptionsAdjuster adjust;
};

// `values` has one entry per input: NaN = nominal; numeric inputs their value; categorical inputs
// kAtLow or kAtHigh. `profile` is the sweep's profile as loaded (copied and scaled when a cost
// input is off nominal).
AppliedInputs applied_inputs(const SweepConfig& base, std::shared_ptr<const Profile> profile,
                             const std::vector<SensitivityInput>& inputs,
                             const std::vector<double>& values);

}  // namespace sparksim
