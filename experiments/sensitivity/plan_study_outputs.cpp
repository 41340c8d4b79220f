// GPUs needed and GPU gains from one searched capacity plan.
#include "experiments/sensitivity/plan_study_outputs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/input_error.hpp"
#include "experiments/plan/fleet.hpp"
#include "experiments/plan/plan_uncertainty.hpp"
#include "experiments/run/problem_list.hpp"

namespace sparksim {

namespace {

constexpr double kUnmet = std::numeric_limits<double>::quiet_NaN();

// The fleets' labels, router-major as run_plan searches them.
std::vector<std::string> fleet_labels(const PlanOptions& o) {
  std::vector<std::string> labels;
  for (const auto& router : o.routers) {
    for (double share : o.prefill_shares) {
      labels.push_back(router + ", " + make_fleet_simulator(router, share)->layout());
    }
  }
  return labels;
}

}  // namespace

std::size_t plan_groups(const PlanOptions& o) {
  return o.policies.size() * o.routers.size() * o.prefill_shares.size();
}

std::vector<PlanStudyOutput> plan_study_outputs(const PlanConfig& c) {
  const auto fleets = fleet_labels(c.options);
  const auto& policies = c.options.policies;
  const auto name = [&](std::size_t p, std::size_t f) {
    return policies[p] + (fleets.size() > 1 ? " [" + fleets[f] + "]" : "");
  };
  std::vector<PlanStudyOutput> out;
  if (c.baseline) {
    for (std::size_t f = 0; f < fleets.size(); ++f) {
      for (std::size_t p = 0; p < policies.size(); ++p) {
        if (p == *c.baseline) continue;
        out.push_back({PlanOutputKind::kGpuGain, p * fleets.size() + f,
                       *c.baseline * fleets.size() + f,
                       "GPU gain " + name(p, f) + " vs " + policies[*c.baseline]});
      }
    }
  }
  for (std::size_t p = 0; p < policies.size(); ++p) {
    for (std::size_t f = 0; f < fleets.size(); ++f) {
      out.push_back(
          {PlanOutputKind::kGpusNeeded, p * fleets.size() + f, 0, "GPUs needed, " + name(p, f)});
    }
  }
  return out;
}

std::vector<double> plan_output_values(const PlanResult& r, std::size_t groups,
                                       const std::vector<PlanStudyOutput>& outputs) {
  const std::size_t per_group = groups == 0 ? 0 : r.plans.size() / groups;
  std::vector<double> gpus(groups, kUnmet);
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t t = 0; t < per_group; ++t) {
      const PolicyPlan& plan = r.plans[g * per_group + t];
      if (!plan.replicas) continue;
      const auto n = static_cast<double>(*plan.replicas * plan.gpus_per_replica);
      gpus[g] = std::isnan(gpus[g]) ? n : std::min(gpus[g], n);
    }
  }
  std::vector<double> values;
  for (const PlanStudyOutput& o : outputs) {
    // NaN propagates: a gain is unmet when either plan is.
    values.push_back(o.kind == PlanOutputKind::kGpusNeeded
                         ? gpus[o.group]
                         : gpus[o.baseline_group] / gpus[o.group]);
  }
  return values;
}

std::vector<double> evaluate_plan_outputs(const PlanConfig& c,
                                          std::shared_ptr<const Profile> profile,
                                          const std::vector<SensitivityInput>& inputs,
                                          const std::vector<double>& values,
                                          const std::vector<PlanStudyOutput>& outputs, int jobs) {
  PlanOptions o = c.options;
  o.uncertain = inputs;
  PlanOptions at = options_at(o, std::move(profile), values);
  at.jobs = jobs;
  return plan_output_values(search_plan(at), plan_groups(c.options), outputs);
}

void check_plan_input(const PlanConfig& c, const SensitivityInput& input) {
  PlanOptions o = c.options;
  o.uncertain = {input};
  try {
    check_uncertain_inputs(o);
  } catch (const InputError& e) {
    // Its problems are worded for `plan --uncertain NAME`; here the input's line names it.
    std::string all;
    const std::string flag = "--uncertain " + input.label();
    for (std::string line : problem_lines(e)) {
      if (line.rfind(flag, 0) == 0) line = input.label() + line.substr(flag.size());
      all += (all.empty() ? "" : "\n  ") + line;
    }
    throw InputError(all);
  }
}

}  // namespace sparksim
