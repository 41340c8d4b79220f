// Recalibrating the analytic generator's constants (issue 17 item 6): the fitter recovers
// constants it was not started from, out of step times the generator itself made with them (an
// oracle independent of the fit), and on the database it lowers the analytic model's error.
#include "profiles/step_composition/analytic_recalibration.hpp"

#include <catch2/catch.hpp>

#include "profiles/step_composition/fidelity_points.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {
namespace {

const std::string kSource = SPARKSIM_SOURCE_DIR;

TEST_CASE("fit_roofline_constants recovers known constants from the generator's own times") {
  const JsonFile shapes = JsonFile::load(kSource + "/profiles/model_shapes.json");
  RooflineConstants truth;
  truth.bandwidth_efficiency = 0.8;
  truth.gemm_efficiency = 0.6;
  truth.attention_efficiency = 0.7;
  truth.kernel_overhead_us = 3.0;
  truth.step_fixed_us = 40.0;
  // Two targets with different layer counts (36, 40), so the per-kernel overhead and the
  // per-step constant are told apart (one target's kernel count is fixed: they would be one).
  std::vector<RooflineObservations> observations;
  for (const std::string target : {"qwen3-8b", "qwen3-14b"}) {
    const Profile p = make_analytic_profile(shapes, "h100", target, "2026-01-01", "", truth);
    const TimeModel model(p);
    RooflineObservations o;
    o.pair = {"h100-sxm", target};
    const std::vector<FidelityPoint> points = fidelity_points(p.kv_capacity_tokens());
    for (std::size_t i = 0; i < points.size(); i += 5) {
      o.shapes.push_back(batch_shape_of(points[i].shape));
      o.observed_ms.push_back(sim_time_to_ms(model.verify_time(o.shapes.back())));
    }
    observations.push_back(std::move(o));
  }
  const RooflineFit fit = fit_roofline_constants(shapes, observations);  // from the defaults
  CHECK(fit.rms_relative_before > 0.05);
  CHECK(fit.rms_relative_after < 1e-4);
  CHECK(fit.constants.bandwidth_efficiency == Approx(0.8).epsilon(1e-3));
  CHECK(fit.constants.gemm_efficiency == Approx(0.6).epsilon(1e-3));
  CHECK(fit.constants.attention_efficiency == Approx(0.7).epsilon(1e-3));
  CHECK(fit.constants.kernel_overhead_us == Approx(3.0).epsilon(1e-2));
  CHECK(fit.constants.step_fixed_us == Approx(40.0).epsilon(0.05));
  // Constants the fit does not touch are kept.
  CHECK(fit.constants.host_overhead_us == RooflineConstants{}.host_overhead_us);
}

TEST_CASE("recalibrate_analytic lowers the analytic model's error against the database") {
  const JsonFile shapes = JsonFile::load(kSource + "/profiles/model_shapes.json");
  // Two targets (36 and 40 layers), as in the synthetic case above.
  const RecalibrationResult r =
      recalibrate_analytic(kSource + "/profiles/data/aic", shapes,
                           {{"h200-sxm", "qwen3-8b"}, {"h200-sxm", "qwen3-14b"}});
  REQUIRE(r.error_before.size() == 2);
  CHECK(r.rms_relative_after < r.rms_relative_before);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(r.error_after[i].overall.mean_abs_pct < r.error_before[i].overall.mean_abs_pct);
    CHECK(r.error_before[i].regions.size() == 4);
  }
}

}  // namespace
}  // namespace sparksim
