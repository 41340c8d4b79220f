// The curves derived from the published figures: exact properties of the derivation (no
// sampling): τ equals Table 1 per target, Figure 2's shape survives, Figure 4's block-size ratios
// hold, and unsupported block sizes are input errors.
#include "sim/acceptance/published_curves.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "published_data.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {
const std::array<DrafterFamily, 3> kFamilies = {DrafterFamily::kEagle3, DrafterFamily::kDflash,
                                                DrafterFamily::kDspark};
const std::array<Domain, 3> kDomains = {Domain::kMath, Domain::kCode, Domain::kChat};

DrafterSpec drafter(DrafterFamily f, int gamma) {
  return {f, gamma, std::string(drafter_family_name(f)) + "-" + std::to_string(gamma)};
}
}  // namespace

TEST_CASE("the published targets are exactly Table 1's rows") {
  std::vector<std::string> rows;
  for (const auto& [target, _] : published_data().at("table1_accepted_length").at("rows").items()) {
    rows.push_back(target);
  }
  std::vector<std::string> listed(published_targets().begin(), published_targets().end());
  std::sort(rows.begin(), rows.end());
  std::sort(listed.begin(), listed.end());
  CHECK(listed == rows);
}

TEST_CASE("mean curves reproduce Table 1's domain means for every target and drafter at gamma 7") {
  for (std::string_view target : published_targets()) {
    for (auto f : kFamilies) {
      const MeanCurves c = published_mean_curves(drafter(f, 7), std::string(target));
      CHECK(c.notes.empty());
      for (auto d : kDomains) {
        INFO(target << " " << drafter_family_name(f) << " " << domain_name(d));
        CHECK(tau_of_curve(c.p[static_cast<int>(d)]) ==
              Approx(published_table1_domain_tau(target, f, d)).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE("Qwen3-4B curves stay within 0.005 of Figure 2 at every position") {
  // Table 1 and Figure 2 agree to within 0.05 in τ, so the logit shift that makes τ exact moves
  // Figure 2's values by at most a few thousandths.
  for (auto f : kFamilies) {
    const MeanCurves c = published_mean_curves(drafter(f, 7), "qwen3-4b");
    for (auto d : kDomains) {
      const auto fig2 = published_figure2(f, d);
      for (int k = 0; k < 7; ++k) {
        INFO(drafter_family_name(f) << " " << domain_name(d) << " position " << k + 1);
        CHECK(c.p[static_cast<int>(d)][static_cast<std::size_t>(k)] ==
              Approx(fig2[static_cast<std::size_t>(k)]).margin(0.005));
      }
    }
  }
}

TEST_CASE("block drafters follow Figure 4's tau ratios at gamma 3, 11, 15 and grow with gamma") {
  for (std::string_view target : published_targets()) {
    for (auto f : {DrafterFamily::kDflash, DrafterFamily::kDspark}) {
      for (auto d : kDomains) {
        const auto fig4 = published_figure4(f, d);
        const double tau7 = published_table1_domain_tau(target, f, d);
        for (std::size_t i = 0; i < kFigure4Gammas.size(); ++i) {
          const int g = kFigure4Gammas[i];
          const MeanCurves c = published_mean_curves(drafter(f, g), std::string(target));
          INFO(target << " " << drafter_family_name(f) << " " << domain_name(d) << " γ " << g);
          CHECK(tau_of_curve(c.p[static_cast<int>(d)]) ==
                Approx(tau7 * fig4[i] / fig4[1]).epsilon(1e-9));
        }
        double previous = 1.0;
        for (int g = 1; g <= kMaxCalibratedGamma; ++g) {
          const double tau = tau_of_curve(
              published_mean_curves(drafter(f, g), std::string(target)).p[static_cast<int>(d)]);
          INFO(target << " " << drafter_family_name(f) << " " << domain_name(d) << " γ " << g);
          CHECK(tau > previous);
          previous = tau;
        }
      }
    }
  }
}

TEST_CASE("eagle3 is autoregressive: its first positions do not depend on the block size") {
  const MeanCurves c3 = published_mean_curves(drafter(DrafterFamily::kEagle3, 3), "qwen3-8b");
  const MeanCurves c11 = published_mean_curves(drafter(DrafterFamily::kEagle3, 11), "qwen3-8b");
  for (int d = 0; d < kDomainCount; ++d) {
    for (int k = 0; k < 3; ++k) CHECK(c3.p[d][k] == c11.p[d][k]);
    for (int k = 7; k < 11; ++k) CHECK(c11.p[d][k] == c11.p[d][6]);  // flat past Figure 2
  }
}

TEST_CASE("mtp1 uses the published second-token acceptance 0.85-0.90") {
  const MeanCurves c = published_mean_curves({DrafterFamily::kMtp1, 1, "mtp1"}, "qwen3-14b");
  const auto [low, high] = published_mtp1_range();
  for (int d = 0; d < kDomainCount; ++d) {
    REQUIRE(c.p[d].size() == 1);
    CHECK(c.p[d][0] >= low);
    CHECK(c.p[d][0] <= high);
  }
  CHECK(c.p[static_cast<int>(Domain::kMath)][0] > c.p[static_cast<int>(Domain::kChat)][0]);
}

TEST_CASE(
    "a block size outside the figures is an input error, an unknown target a stated fallback") {
  CHECK_THROWS_AS(published_mean_curves(drafter(DrafterFamily::kDspark, 16), "qwen3-8b"),
                  InputError);
  CHECK_THROWS_WITH(published_mean_curves(drafter(DrafterFamily::kEagle3, 20), "qwen3-8b"),
                    Catch::Contains("block sizes 1..15"));
  CHECK_THROWS_AS(published_mean_curves({DrafterFamily::kMtp1, 2, "mtp1"}, "qwen3-8b"), InputError);
  const MeanCurves fallback =
      published_mean_curves(drafter(DrafterFamily::kDspark, 7), "llama-70b");
  REQUIRE(fallback.notes.size() == 1);
  CHECK_THAT(fallback.notes[0], Catch::Contains("llama-70b") && Catch::Contains("Qwen3-4B"));
  CHECK(fallback.p == published_mean_curves(drafter(DrafterFamily::kDspark, 7), "qwen3-4b").p);
}
