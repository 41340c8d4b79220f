// The catalogue of named acceptance scenarios; the curves themselves are derived in
// published_curves.cpp (one derivation per quantity).
#include "sim/acceptance/acceptance_scenarios.hpp"

#include <array>

#include "common/named_spec.hpp"

namespace sparksim {

namespace {

constexpr std::array<AcceptanceScenario, 2> kScenarios = {{
    {"v4-vllm-note",
     "third-party vLLM DSpark integration note for DeepSeek-V4-Flash, gamma = 7 (position 1 at "
     "least 0.70, prefix survival at position 7 below 0.10); project copy "
     "tests/sim/acceptance/data/v4_third_party_acceptance.json",
     "Figure 2's DSpark shapes per domain, one common logit shift so the domain-mean prefix "
     "survival at position 7 is 0.10 (the bound); positions 1..gamma"},
    {"dspark-table1-qwen3",
     "DSpark paper Table 1 (gamma = 7, temperature 1, full-block verification): DSpark's accepted "
     "length on Qwen3-4B/8B/14B; project copy tests/sim/acceptance/data/dspark_published.json",
     "Table 1's DSpark tau per domain averaged over the three Qwen3 targets, with Figure 2's "
     "shapes and Figure 4's block-size ratio (the derivation every Table 1 target uses)"},
}};

// The value of `key` in a `name:key=value,...` spec as written ("" when absent).
std::string spec_value(const std::string& spec, const std::string& key) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos) return "";
  for (std::size_t pos = colon + 1; pos <= spec.size();) {
    const auto comma = spec.find(',', pos);
    const std::string item = spec.substr(pos, comma == std::string::npos ? comma : comma - pos);
    const auto eq = item.find('=');
    if (eq != std::string::npos && item.substr(0, eq) == key) return item.substr(eq + 1);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return "";
}

}  // namespace

std::span<const AcceptanceScenario> acceptance_scenarios() {
  return kScenarios;
}

bool is_scenario_target(std::string_view target) {
  return target.rfind("deepseek-v4-", 0) == 0;
}

std::string scenario_names() {
  std::string out;
  for (const auto& s : kScenarios) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

ScenarioBand scenario_band(std::string_view target, const std::string& acceptance) {
  ScenarioBand band;
  if (!is_scenario_target(target)) {
    band.why_none = std::string(target) + " has published acceptance (no scenarios)";
    return band;
  }
  const NamedSpec spec = NamedSpec::parse(acceptance, "--acceptance");
  if (spec.name() != "calibrated") {
    band.why_none = "the acceptance '" + acceptance + "' is not the calibrated model";
  } else if (band.pinned = spec_value(acceptance, "scenario"); !band.pinned.empty()) {
    band.why_none = "the acceptance pins scenario=" + band.pinned;
  } else if (const std::string curves = spec_value(acceptance, "curves"); !curves.empty()) {
    band.why_none = "the acceptance reads its curves from " + curves;
  } else {
    for (const auto& s : kScenarios) band.scenarios.emplace_back(s.name);
  }
  return band;
}

std::string acceptance_under_scenario(const std::string& acceptance, std::string_view scenario) {
  if (scenario == kDefaultV4Scenario) return acceptance;
  return acceptance + (acceptance.find(':') == std::string::npos ? ":" : ",") +
         "scenario=" + std::string(scenario);
}

}  // namespace sparksim
