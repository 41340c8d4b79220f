// The catalogue of named acceptance scenarios; the curves themselves are derived in
// published_curves.cpp (one derivation per quantity).
#include "sim/acceptance/acceptance_scenarios.hpp"

#include <array>

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

}  // namespace sparksim
