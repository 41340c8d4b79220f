// DeepSeek-V4 acceptance defaults, selected by the profile's target: DSpark curves meet the
// third-party vLLM figures they were derived from (V4-Flash, γ = 7: mean prefix survival at
// position 7 at the 0.10 bound, position 1 at least 0.70); MTP-1 keeps 0.85-0.90 (DeepSeek-V3
// report); dense targets are unaffected.
#include <catch2/catch.hpp>

#include "sim/acceptance/published_curves.hpp"

namespace sparksim {
namespace {

TEST_CASE("V4 DSpark acceptance meets the third-party V4-Flash prefix-survival figures") {
  const MeanCurves c = published_mean_curves(parse_drafter("dspark-7"), "deepseek-v4-flash");
  double survival7 = 0, position1 = 0;
  for (int d = 0; d < kDomainCount; ++d) {
    double s = 1;
    for (double p : c.p[d]) s *= p;
    survival7 += s / kDomainCount;
    position1 += c.p[d][0] / kDomainCount;
  }
  CHECK(survival7 == Approx(0.10).margin(1e-9));
  CHECK(position1 >= 0.70);
  REQUIRE(c.notes.size() == 1);
  CHECK(c.notes[0].find("deepseek-v4") != std::string::npos);
  // DSpark-5 on V4 is the first five positions of the same curves; Pro gets the same.
  const MeanCurves five = published_mean_curves(parse_drafter("dspark-5"), "deepseek-v4-pro");
  for (int d = 0; d < kDomainCount; ++d) {
    REQUIRE(five.p[d].size() == 5);
    for (int k = 0; k < 5; ++k) CHECK(five.p[d][k] == Approx(c.p[d][k]));
  }
  // Math accepts more than chat, as in every published DSpark curve.
  CHECK(tau_of_curve(five.p[0]) > tau_of_curve(five.p[2]));
}

TEST_CASE("MTP-1 on V4 keeps the DeepSeek-V3 report acceptance, dense targets are unchanged") {
  const MeanCurves m = published_mean_curves(parse_drafter("mtp1"), "deepseek-v4-flash");
  CHECK(m.p[0][0] == Approx(0.90));
  CHECK(m.p[2][0] == Approx(0.85));
  const MeanCurves q = published_mean_curves(parse_drafter("dspark-7"), "qwen3-8b");
  CHECK(q.notes.empty());
}

}  // namespace
}  // namespace sparksim
