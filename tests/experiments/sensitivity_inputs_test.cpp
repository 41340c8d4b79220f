// applied_inputs: what one set of input values turns into for a sweep's runs. Hand-checked cases:
// an input left at nominal leaves the experiment's own setting (a sweep's workload.arrival_cv)
// alone even when another input builds the run-options adjuster; a set arrival_cv replaces it; a
// length input multiplies the run's own length scale (a plan's --prompt-length-scale), and a cost
// input alone leaves that scale as it was.
#include "experiments/sensitivity/sensitivity_inputs.hpp"

#include <catch2/catch.hpp>

#include "profiles/profile_io.hpp"

namespace sparksim {
namespace {

TEST_CASE("applied_inputs keeps the experiment's own arrival_cv unless the input sets one",
          "[sensitivity][inputs]") {
  SweepConfig base;
  base.arrival_cv = 2.5;  // the sweep's workload.arrival_cv
  const auto profile =
      std::make_shared<const Profile>(load_profile("profiles/analytic/h100-sxm/qwen3-8b.json"));
  std::vector<SensitivityInput> inputs(2);
  inputs[0].kind = find_input_kind("prompt_length_x");
  inputs[0].low = 0.5;
  inputs[0].high = 2;
  inputs[1].kind = find_input_kind("arrival_cv");
  inputs[1].low = 0.5;
  inputs[1].high = 4;

  RunOptions o;
  o.arrival_cv = base.arrival_cv;  // what point_run_options copies from the config
  const AppliedInputs lengths = applied_inputs(base, profile, inputs, {2.0, nominal_value()});
  REQUIRE(lengths.adjust);
  lengths.adjust(o);
  CHECK(o.prompt_length_scale == 2.0);
  CHECK(o.arrival_cv == 2.5);

  const AppliedInputs burst = applied_inputs(base, profile, inputs, {nominal_value(), 4.0});
  REQUIRE(burst.adjust);
  burst.adjust(o);
  CHECK(o.arrival_cv == 4.0);
}

TEST_CASE("applied_inputs multiplies the run's own length scales, and a cost input keeps them",
          "[sensitivity][inputs]") {
  const auto profile =
      std::make_shared<const Profile>(load_profile("profiles/analytic/h100-sxm/qwen3-8b.json"));
  std::vector<SensitivityInput> inputs(2);
  inputs[0].kind = find_input_kind("output_length_x");
  inputs[0].low = 0.5;
  inputs[0].high = 2;
  inputs[1].kind = find_input_kind("draft_cost_x");
  inputs[1].low = 0.5;
  inputs[1].high = 2;
  RunOptions plan_run;  // `plan --prompt-length-scale 3 --output-length-scale 1.5`
  plan_run.prompt_length_scale = 3;
  plan_run.output_length_scale = 1.5;

  RunOptions cost = plan_run;
  applied_inputs({}, profile, inputs, {nominal_value(), 2.0}).adjust(cost);
  CHECK(cost.prompt_length_scale == 3.0);
  CHECK(cost.output_length_scale == 1.5);

  RunOptions longer = plan_run;
  applied_inputs({}, profile, inputs, {2.0, nominal_value()}).adjust(longer);
  CHECK(longer.prompt_length_scale == 3.0);
  CHECK(longer.output_length_scale == 3.0);  // 1.5 x 2
}

}  // namespace
}  // namespace sparksim
