// Named acceptance scenarios: declared priors for targets that have no published acceptance for
// a drafter (today DeepSeek-V4 with DSpark), selected by `--acceptance calibrated:scenario=NAME`.
// Each is an input with its source, never a fit: sensitivity studies and reports show results
// under every scenario so that a conclusion's dependence on the prior is visible.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sparksim {

struct AcceptanceScenario {
  std::string_view name;
  std::string_view source;   // the public figure it rests on
  std::string_view summary;  // how the curves are derived from it
};

// The scenarios for deepseek-v4-* targets, the default first.
std::span<const AcceptanceScenario> acceptance_scenarios();

// The default for deepseek-v4-* (argued in docs/moe.md).
inline constexpr std::string_view kDefaultV4Scenario = "v4-vllm-note";

// True for targets whose DSpark acceptance comes from a scenario (deepseek-v4-*).
bool is_scenario_target(std::string_view target);

// "v4-vllm-note, dspark-table1-qwen3", for messages.
std::string scenario_names();

// The scenarios a result on `target` under the acceptance spec `acceptance` is shown under, so
// that its dependence on the prior is visible: every scenario (the default first) when the target
// takes scenarios and the spec is the calibrated model leaving the scenario to the target's
// default (no `scenario=`, no `curves=`); otherwise none, and `why_none` says why ("the acceptance
// pins scenario=dspark-table1-qwen3").
struct ScenarioBand {
  std::vector<std::string> scenarios;
  std::string why_none;
  std::string pinned;  // the scenario the spec pins ("" when none)
};
ScenarioBand scenario_band(std::string_view target, const std::string& acceptance);

// `acceptance` (a calibrated spec leaving the scenario open) under `scenario`: unchanged for the
// default, so the default's runs are exactly the runs made without a band; otherwise with
// `scenario=NAME` appended.
std::string acceptance_under_scenario(const std::string& acceptance, std::string_view scenario);

}  // namespace sparksim
