// Named acceptance scenarios for deepseek-v4-*: each reproduces the public figures it is declared
// from, read from the project's verbatim copies (tests/sim/acceptance/data/), not from the
// compiled tables; scenario= is refused on targets with published curves and for unknown names.
#include "sim/acceptance/acceptance_scenarios.hpp"

#include <cmath>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/input_error.hpp"
#include "published_data.hpp"
#include "sim/acceptance/published_curves.hpp"

namespace sparksim {
namespace {

nlohmann::json third_party_v4() {
  std::ifstream in(std::string(SPARKSIM_SOURCE_DIR) +
                   "/tests/sim/acceptance/data/v4_third_party_acceptance.json");
  return nlohmann::json::parse(in).at("third_party_acceptance_v4_flash");
}

double mean_prefix_survival(const MeanCurves& c, int positions) {
  double sum = 0;
  for (int d = 0; d < kDomainCount; ++d) {
    double s = 1;
    for (int k = 0; k < positions; ++k) s *= c.p[d][static_cast<std::size_t>(k)];
    sum += s / kDomainCount;
  }
  return sum;
}

TEST_CASE("scenario v4-vllm-note (the default) sits at the vLLM note's bounds") {
  const auto note = third_party_v4().at("vllm_gamma7_prefix_survival");
  const auto dspark7 = parse_drafter("dspark-7");
  const MeanCurves named = published_mean_curves(dspark7, "deepseek-v4-flash", "v4-vllm-note");
  CHECK(mean_prefix_survival(named, 7) ==
        Approx(note.at("position_7_below").get<double>()).margin(1e-9));
  CHECK(mean_prefix_survival(named, 1) >= note.at("position_1_at_least").get<double>());
  const MeanCurves by_default = published_mean_curves(dspark7, "deepseek-v4-flash");
  for (int d = 0; d < kDomainCount; ++d) CHECK(by_default.p[d] == named.p[d]);
  CHECK(acceptance_scenarios().front().name == kDefaultV4Scenario);
}

TEST_CASE("scenario dspark-table1-qwen3 gives Table 1's mean Qwen3 DSpark tau at gamma 7") {
  const MeanCurves c =
      published_mean_curves(parse_drafter("dspark-7"), "deepseek-v4-pro", "dspark-table1-qwen3");
  for (int d = 0; d < kDomainCount; ++d) {
    const auto domain = static_cast<Domain>(d);
    double expected = 0;
    for (const char* t : {"qwen3-4b", "qwen3-8b", "qwen3-14b"}) {
      expected += testing::published_table1_domain_tau(t, DrafterFamily::kDspark, domain) / 3.0;
    }
    CHECK(tau_of_curve(c.p[d]) == Approx(expected).margin(1e-9));
  }
  // The two priors differ a great deal (the point): Table 1 is the more favourable.
  const MeanCurves note = published_mean_curves(parse_drafter("dspark-7"), "deepseek-v4-pro");
  CHECK(mean_prefix_survival(c, 7) > 2 * mean_prefix_survival(note, 7));
  REQUIRE(c.notes.size() == 1);
  CHECK(c.notes[0].find("dspark-table1-qwen3") != std::string::npos);
}

TEST_CASE("scenario is refused on targets with published curves and for unknown names") {
  CHECK_THROWS_AS(published_mean_curves(parse_drafter("dspark-7"), "qwen3-8b", "v4-vllm-note"),
                  InputError);
  CHECK_THROWS_AS(published_mean_curves(parse_drafter("dspark-7"), "deepseek-v4-flash", "nope"),
                  InputError);
  // MTP-1 has published acceptance (DeepSeek-V3 report): every scenario leaves it alone.
  const MeanCurves m =
      published_mean_curves(parse_drafter("mtp1"), "deepseek-v4-flash", "dspark-table1-qwen3");
  CHECK(m.p[0][0] == Approx(0.90));
}

TEST_CASE("the band over scenarios applies where the acceptance leaves the scenario open") {
  // Every registered scenario, the default first, for the calibrated model left open on V4.
  const ScenarioBand open = scenario_band("deepseek-v4-pro", "calibrated:latent_sd=0.5");
  REQUIRE(open.scenarios.size() == acceptance_scenarios().size());
  CHECK(open.scenarios.front() == kDefaultV4Scenario);
  CHECK(open.why_none.empty());
  // No band where the scenario is fixed or does not apply, each with its reason.
  const ScenarioBand pinned =
      scenario_band("deepseek-v4-flash", "calibrated:scenario=dspark-table1-qwen3");
  CHECK(pinned.scenarios.empty());
  CHECK(pinned.pinned == "dspark-table1-qwen3");
  CHECK(pinned.why_none == "the acceptance pins scenario=dspark-table1-qwen3");
  CHECK(scenario_band("deepseek-v4-flash", "calibrated:curves=c.json").why_none ==
        "the acceptance reads its curves from c.json");
  CHECK(scenario_band("deepseek-v4-flash", "replay:log=a.log").scenarios.empty());
  CHECK(scenario_band("qwen3-8b", "calibrated").why_none ==
        "qwen3-8b has published acceptance (no scenarios)");
  // The default's spec is the spec as given (its runs are the runs without a band).
  CHECK(acceptance_under_scenario("calibrated", kDefaultV4Scenario) == "calibrated");
  CHECK(acceptance_under_scenario("calibrated", "dspark-table1-qwen3") ==
        "calibrated:scenario=dspark-table1-qwen3");
  CHECK(acceptance_under_scenario("calibrated:shift=0.5", "dspark-table1-qwen3") ==
        "calibrated:shift=0.5,scenario=dspark-table1-qwen3");
}

TEST_CASE("shift_mean_curves moves every position by the same logit") {
  MeanCurves c;
  for (int d = 0; d < kDomainCount; ++d) c.p[d] = {0.5, 0.8};
  shift_mean_curves(c, std::log(3.0));
  CHECK(c.p[0][0] == Approx(0.75));
  CHECK(c.p[2][1] == Approx(12.0 / 13.0));  // odds 4 -> 12
}

}  // namespace
}  // namespace sparksim
