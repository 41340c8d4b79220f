// A v4-topologies comparison's rows as a sensitivity study's experiment.
#include "experiments/sensitivity/topology_study.hpp"

#include <algorithm>
#include <cmath>

#include "common/input_error.hpp"
#include "experiments/run/problem_list.hpp"
#include "experiments/sweep/topology_profiles.hpp"

namespace sparksim {

namespace {

// The adjuster that runs `row`'s profile, then the inputs' own edits (a cost input replaces the
// profile with its scaled copy of the row's).
RunOptionsAdjuster on_row(std::shared_ptr<const Profile> row, RunOptionsAdjuster inputs) {
  return [row = std::move(row), inputs = std::move(inputs)](RunOptions& o) {
    o.profile = row;
    if (inputs) inputs(o);
  };
}

}  // namespace

TopologyStudy load_topology_study(const std::string& path, const std::vector<std::string>& keep) {
  TopologyStudy s;
  s.config = load_topology_sweep_config(path);
  ProblemList problems;
  problems.check([&] {
    s.comparison = load_sweep_config(s.config.sweep_path);
    if (!s.config.loads.empty()) s.comparison.loads = s.config.loads;
    if (!s.config.seeds.empty())
      s.comparison.seeds.assign(s.config.seeds.begin(), s.config.seeds.end());
    if (!s.comparison.baseline || s.comparison.tiers_tok_s_per_user.empty()) {
      throw InputError(s.config.sweep_path + ": the comparison needs a baseline and tiers");
    }
  });
  std::vector<TopologyEntry> entries;
  std::vector<Profile> profiles;
  build_topology_profiles(s.config, entries, profiles, problems);
  problems.throw_if_any();
  std::string names;
  for (const auto& e : entries) names += (names.empty() ? "" : ", ") + e.name;
  for (const std::string& name : keep) {
    const auto it = std::find_if(entries.begin(), entries.end(),
                                 [&](const TopologyEntry& e) { return e.name == name; });
    if (it == entries.end()) {
      problems.add("row '" + name + "' is not one of the experiment's (" + names + ")");
    } else if (!it->refused.empty()) {
      problems.add("row '" + name + "' does not fit: " + it->refused);
    }
  }
  problems.throw_if_any();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const bool kept = keep.empty()
                          ? entries[i].refused.empty()
                          : std::find(keep.begin(), keep.end(), entries[i].name) != keep.end();
    if (!kept) continue;
    s.rows.push_back({entries[i].name, std::make_shared<const Profile>(std::move(profiles[i]))});
  }
  if (s.rows.empty()) throw InputError(path + ": no topology row fits");
  return s;
}

std::vector<TopologyStudyOutput> topology_study_outputs(const TopologyStudy& s) {
  std::vector<TopologyStudyOutput> out;
  for (std::size_t r = 0; r < s.rows.size(); ++r) {
    for (SweepOutput o : sweep_outputs(s.comparison)) {
      if (!o.is_comparison()) continue;
      o.name += ", " + s.rows[r].name;
      out.push_back({r, std::move(o)});
    }
  }
  return out;
}

std::vector<double> evaluate_topology_outputs(const TopologyStudy& s,
                                              const std::vector<SensitivityInput>& inputs,
                                              const std::vector<double>& values,
                                              const std::vector<TopologyStudyOutput>& outputs,
                                              int jobs) {
  std::vector<double> result;
  for (std::size_t r = 0; r < s.rows.size(); ++r) {
    std::vector<SweepOutput> row_outputs;
    for (const auto& o : outputs) {
      if (o.row == r) row_outputs.push_back(o.output);
    }
    if (row_outputs.empty()) continue;
    const AppliedInputs a = applied_inputs(s.comparison, s.rows[r].profile, inputs, values);
    const auto v =
        evaluate_sweep_outputs(a.config, on_row(s.rows[r].profile, a.adjust), row_outputs, jobs);
    result.insert(result.end(), v.begin(), v.end());
  }
  return result;
}

void check_topology_input(const TopologyStudy& s, const std::vector<SensitivityInput>& inputs,
                          std::size_t i) {
  const SensitivityInput& in = inputs[i];
  for (const bool high : {false, true}) {
    std::vector<double> values(inputs.size(), nominal_value());
    values[i] = in.kind->categorical ? (high ? kAtHigh : kAtLow) : (high ? in.high : in.low);
    const std::string at = in.label() + " at " + (high ? in.high_text() : in.low_text());
    for (const TopologyRowProfile& row : s.rows) {
      try {
        const AppliedInputs a = applied_inputs(s.comparison, row.profile, inputs, values);
        const RunOptionsAdjuster adjust = on_row(row.profile, a.adjust);
        for (std::size_t sys = 0; sys < a.config.systems.size(); ++sys) {
          RunOptions o = point_run_options(a.config, SweepPoint{0, sys, 0, 0});
          adjust(o);
          (void)prepare_run(o);
        }
      } catch (const InputError& e) {
        throw InputError(at + ", row " + row.name + ": " + e.what());
      }
    }
  }
}

}  // namespace sparksim
