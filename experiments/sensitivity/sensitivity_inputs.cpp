// The input catalogue and its application to a sweep.
#include "experiments/sensitivity/sensitivity_inputs.hpp"

#include "common/json_file.hpp"
#include "experiments/sensitivity/profile_scaling.hpp"
#include "experiments/sensitivity/routing_imbalance.hpp"
#include "sim/acceptance/acceptance_scenarios.hpp"
#include "traces/arrival_burstiness.hpp"

namespace sparksim {

namespace {

constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();

// Appends `key=value` to a calibrated acceptance spec ("calibrated" or "calibrated:a=1").
std::string with_key(const std::string& spec, const std::string& key, const std::string& value) {
  return spec + (spec.find(':') == std::string::npos ? ":" : ",") + key + "=" + value;
}

bool at_nominal(double value) {
  return std::isnan(value);
}

}  // namespace

const std::vector<InputKindInfo>& input_kinds() {
  static const std::vector<InputKindInfo> kinds = {
      {InputKind::kAcceptanceShift, "acceptance_shift",
       "every drafter's mean acceptance curve moved on the logit scale", false, 0.0, -5, 5},
      {InputKind::kAcceptanceScenario, "acceptance_scenario",
       "named acceptance prior for deepseek-v4-* (sim/acceptance/acceptance_scenarios.cpp)", true,
       kUnset, 0, 1},
      {InputKind::kAcceptanceSpread, "acceptance_spread",
       "per-step difficulty spread (calibrated latent_sd, logit scale)", false, 0.90, 0, 4},
      {InputKind::kConfidenceAuc, "confidence_auc", "confidence head's ROC-AUC per domain", false,
       kUnset, 0.5, 0.995},
      {InputKind::kConfidenceEce, "confidence_ece", "confidence head's ECE per domain", false,
       kUnset, 0, 0.4},
      {InputKind::kDraftCost, "draft_cost_x", "drafter step time x", false, 1.0, 0.05, 20},
      {InputKind::kVerifyCost, "verify_cost_x", "target verify step time x (SPS beliefs follow)",
       false, 1.0, 0.05, 20},
      {InputKind::kHostOverhead, "host_overhead_x",
       "host scheduling overhead x (synchronous policies pay it)", false, 1.0, 0, 20},
      {InputKind::kSpsBelief, "sps_belief", "the scheduler's SPS belief (capture|live|reference)",
       true, kUnset, 0, 1},
      {InputKind::kPromptLength, "prompt_length_x",
       "every request's prompt tokens x (the trace's own arrivals)", false, 1.0, 0.05, 20},
      {InputKind::kOutputLength, "output_length_x",
       "every request's output tokens x (the trace's own arrivals)", false, 1.0, 0.05, 20},
      {InputKind::kArrivalCv, "arrival_cv",
       "inter-arrival gaps re-drawn as a gamma renewal process with this cv (open loop)", false,
       kUnset, 0.05, kMaxArrivalCv},
      {InputKind::kRoutingImbalance, "routing_imbalance",
       "MoE targets: hottest expert-parallel rank's routed load / mean (moves the routed "
       "experts' time only)",
       false, nominal_routing_imbalance(), 1, 8},
  };
  return kinds;
}

const InputKindInfo* find_input_kind(std::string_view name) {
  for (const auto& k : input_kinds()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::string input_kind_names() {
  std::string out;
  for (const auto& k : input_kinds()) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

bool is_choice_of(const InputKindInfo& kind, const std::string& value) {
  if (kind.kind == InputKind::kSpsBelief) {
    return value == "capture" || value == "live" || value == "reference";
  }
  if (kind.kind != InputKind::kAcceptanceScenario) return false;
  for (const auto& s : acceptance_scenarios()) {
    if (s.name == value) return true;
  }
  return false;
}

bool varies_acceptance_model(const InputKindInfo& kind) {
  switch (kind.kind) {
    case InputKind::kAcceptanceShift:
    case InputKind::kAcceptanceScenario:
    case InputKind::kAcceptanceSpread:
    case InputKind::kConfidenceAuc:
    case InputKind::kConfidenceEce:
      return true;
    case InputKind::kDraftCost:
    case InputKind::kVerifyCost:
    case InputKind::kHostOverhead:
    case InputKind::kSpsBelief:
    case InputKind::kPromptLength:
    case InputKind::kOutputLength:
    case InputKind::kArrivalCv:
    case InputKind::kRoutingImbalance:
      return false;
  }
  return false;
}

std::string SensitivityInput::low_text() const {
  return kind->categorical ? low_choice : format_number(low);
}
std::string SensitivityInput::high_text() const {
  return kind->categorical ? high_choice : format_number(high);
}

AppliedInputs applied_inputs(const SweepConfig& base, std::shared_ptr<const Profile> profile,
                             const std::vector<SensitivityInput>& inputs,
                             const std::vector<double>& values) {
  AppliedInputs out{base, {}};
  double draft_x = 1, verify_x = 1, host_x = 1, prompt_x = 1, output_x = 1;
  double arrival_cv = 0;  // 0: the workload's own arrivals
  double routing = nominal_routing_imbalance();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const double v = values.at(i);
    if (at_nominal(v)) continue;
    const SensitivityInput& in = inputs[i];
    const std::string choice = v == kAtLow ? in.low_choice : in.high_choice;
    std::string& acceptance = out.config.acceptance;
    switch (in.kind->kind) {
      case InputKind::kAcceptanceShift:
        acceptance = with_key(acceptance, "shift", format_number(v));
        break;
      case InputKind::kAcceptanceScenario:
        acceptance = with_key(acceptance, "scenario", choice);
        break;
      case InputKind::kAcceptanceSpread:
        acceptance = with_key(acceptance, "latent_sd", format_number(v));
        break;
      case InputKind::kConfidenceAuc:
        acceptance = with_key(acceptance, "auc", format_number(v));
        break;
      case InputKind::kConfidenceEce:
        acceptance = with_key(acceptance, "ece", format_number(v));
        break;
      case InputKind::kDraftCost:
        draft_x = v;
        break;
      case InputKind::kVerifyCost:
        verify_x = v;
        break;
      case InputKind::kHostOverhead:
        host_x = v;
        break;
      case InputKind::kSpsBelief:
        out.config.sps = choice;
        for (auto& system : out.config.systems) {
          if (!system.sps_own) system.sps = choice;
        }
        break;
      case InputKind::kPromptLength:
        prompt_x = v;
        break;
      case InputKind::kOutputLength:
        output_x = v;
        break;
      case InputKind::kArrivalCv:
        arrival_cv = v;
        break;
      case InputKind::kRoutingImbalance:
        routing = v;
        break;
    }
  }
  const bool cost =
      draft_x != 1 || verify_x != 1 || host_x != 1 || routing != nominal_routing_imbalance();
  if (!cost && prompt_x == 1 && output_x == 1 && arrival_cv == 0) return out;
  std::shared_ptr<Profile> scaled;  // null: the profile as loaded
  double host_us = 0;
  if (cost) {
    scaled = std::make_shared<Profile>(*profile);
    // Before the verify factor: a dearer forward pays for its imbalance at the same rate.
    if (routing != nominal_routing_imbalance()) apply_routing_imbalance(*scaled, routing);
    scale_draft_cost(*scaled, draft_x);
    scale_verify_cost(*scaled, verify_x);
    host_us = profile->host_overhead_us * host_x;
  }
  out.adjust = [scaled, host_us, prompt_x, output_x, arrival_cv](RunOptions& o) {
    if (scaled) {
      o.profile = scaled;
      o.host_overhead_us = host_us;
    }
    // Times the options' own scales: a plan's --prompt-length-scale stays under a cost input.
    o.prompt_length_scale *= prompt_x;
    o.output_length_scale *= output_x;
    // Unset: the experiment's own arrival_cv (a sweep's workload.arrival_cv, plan's option).
    if (arrival_cv != 0) o.arrival_cv = arrival_cv;
  };
  return out;
}

}  // namespace sparksim
