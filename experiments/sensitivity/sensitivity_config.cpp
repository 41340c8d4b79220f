// Parsing and checking `sparksim.sensitivity/1` configs.
#include "experiments/sensitivity/sensitivity_config.hpp"

#include <cmath>
#include <memory>
#include <set>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "experiments/sensitivity/plan_study_outputs.hpp"
#include "experiments/sensitivity/routing_imbalance.hpp"
#include "experiments/sensitivity/topology_study.hpp"
#include "profiles/profile_io.hpp"

namespace sparksim {

namespace {

using Pointer = JsonFile::Pointer;

// "systems": labels to keep (the baseline must stay); the baseline index follows.
void keep_systems(const JsonFile& f, const Pointer& ptr, SweepConfig& c) {
  const auto& list = f.get_array(ptr);
  if (list.empty()) f.fail(ptr, "systems is empty; list the labels to keep");
  const std::string baseline = c.systems[*c.baseline].label();
  std::vector<SweepSystem> kept;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string label = f.get_string(ptr / i);
    bool found = false;
    for (const auto& s : c.systems) {
      if (s.label() == label) {
        kept.push_back(s);
        found = true;
      }
    }
    if (!found) {
      std::string valid;
      for (const auto& s : c.systems) valid += (valid.empty() ? "" : "; ") + s.label();
      f.fail(ptr / i, "system '" + label + "' is not in the experiment (systems: " + valid + ")");
    }
  }
  c.systems = kept;
  c.baseline.reset();
  for (std::size_t s = 0; s < kept.size(); ++s) {
    if (kept[s].label() == baseline) c.baseline = s;
  }
  if (!c.baseline) f.fail(ptr, "systems must keep the baseline '" + baseline + "'");
  if (kept.size() < 2) f.fail(ptr, "systems must keep the baseline and at least one other");
}

// `topology`: the comparison of a v4-topologies experiment, whose rows are chosen apart ("rows").
void apply_overrides(const JsonFile& f, const Pointer& ptr, SweepConfig& c, bool topology = false) {
  if (topology) {
    f.reject_unknown_keys(ptr, {"systems", "loads", "seeds", "tiers_tok_s_per_user", "rows"});
  } else {
    f.reject_unknown_keys(ptr,
                          {"systems", "loads", "seeds", "max_requests", "tiers_tok_s_per_user"});
  }
  const auto& o = f.at(ptr);
  if (o.contains("systems")) keep_systems(f, ptr / "systems", c);
  if (o.contains("loads")) {
    c.loads = f.get_number_array(ptr / "loads", NumberRange::positive(), 1);
    if (c.load_kind == LoadKind::kConcurrency) {
      for (std::size_t i = 0; i < c.loads.size(); ++i) {
        if (c.loads[i] != std::floor(c.loads[i])) f.fail(ptr / "loads" / i, "must be an integer");
      }
    }
  }
  if (o.contains("seeds")) {
    c.seeds.clear();
    for (auto s : f.get_int_array(ptr / "seeds", 0, std::int64_t{1} << 53, 1)) {
      c.seeds.push_back(static_cast<std::uint64_t>(s));
    }
  }
  if (o.contains("max_requests")) {
    if (c.trace_path.empty()) f.fail(ptr / "max_requests", "applies to trace workloads only");
    c.max_requests = f.get_int(ptr / "max_requests", 1, std::int64_t{1} << 40);
  }
  if (o.contains("tiers_tok_s_per_user")) {
    c.tiers_tok_s_per_user =
        f.get_number_array(ptr / "tiers_tok_s_per_user", NumberRange::positive(), 1);
  }
}

SensitivityInput parse_input(const JsonFile& f, const Pointer& ptr, const std::string& acceptance) {
  f.reject_unknown_keys(ptr, {"input", "low", "high"});
  SensitivityInput in;
  const std::string name = f.get_string(ptr / "input");
  in.kind = find_input_kind(name);
  if (in.kind == nullptr) {
    f.fail(ptr / "input", "unknown input '" + name + "' (inputs: " + input_kind_names() + ")");
  }
  if (varies_acceptance_model(*in.kind) && acceptance.rfind("calibrated", 0) != 0) {
    f.fail(ptr / "input", name + " varies the calibrated acceptance model; the experiment uses '" +
                              acceptance + "'");
  }
  if (in.kind->categorical) {
    in.low_choice = f.get_string(ptr / "low");
    in.high_choice = f.get_string(ptr / "high");
    for (const char* end : {"low", "high"}) {
      const std::string v = f.get_string(ptr / end);
      if (!is_choice_of(*in.kind, v)) f.fail(ptr / end, "'" + v + "' is not a value of " + name);
    }
    return in;
  }
  const NumberRange range = NumberRange::between(in.kind->min, in.kind->max);
  in.low = f.get_number(ptr / "low", range);
  in.high = f.get_number(ptr / "high", range);
  if (!(in.low < in.high)) f.fail(ptr / "high", "high must be above low");
  return in;
}

// Prepares one run of every system with input i at its low and at its high value (sparksim run's
// own checks: a scenario on a target with published curves, auc= beside signal=, ...), so a bad
// combination stops before any simulation.
void check_input_runs(const JsonFile& f, const Pointer& ptr, const SensitivityConfig& c,
                      std::size_t i) {
  for (const bool high : {false, true}) {
    std::vector<double> values(c.inputs.size(), nominal_value());
    const SensitivityInput& in = c.inputs[i];
    values[i] = in.kind->categorical ? (high ? kAtHigh : kAtLow) : (high ? in.high : in.low);
    AppliedInputs applied;
    try {
      applied = applied_inputs(c.experiment, c.profile, c.inputs, values);
    } catch (const InputError& e) {
      f.fail(ptr, in.label() + " at " + (high ? in.high_text() : in.low_text()) + ": " + e.what());
    }
    for (std::size_t s = 0; s < applied.config.systems.size(); ++s) {
      RunOptions o = point_run_options(applied.config, SweepPoint{0, s, 0, 0});
      if (applied.adjust) applied.adjust(o);
      try {
        (void)prepare_run(o);
      } catch (const InputError& e) {
        f.fail(ptr,
               in.label() + " at " + (high ? in.high_text() : in.low_text()) + ": " + e.what());
      }
    }
  }
}

// The experiment file's schema; "" when it has none or does not parse (its loader then says why).
std::string schema_of(const std::string& path) {
  try {
    const JsonFile f = JsonFile::load(path);
    if (f.has(Pointer("/schema"))) return f.get_string(Pointer("/schema"));
  } catch (const InputError&) {
  }
  return "";
}

// A `sparksim.sweep/1` comparison, its reductions applied.
void load_sweep_experiment(const JsonFile& f, SensitivityConfig& c) {
  try {
    c.experiment = load_sweep_config(c.experiment_path);
  } catch (const InputError& e) {
    f.fail(Pointer("/experiment"), "the experiment does not load:\n" + std::string(e.what()));
  }
  if (!c.experiment.baseline || c.experiment.tiers_tok_s_per_user.empty()) {
    f.fail(Pointer("/experiment"), "the experiment needs a baseline and tiers_tok_s_per_user");
  }
  if (f.has(Pointer("/experiment_overrides"))) {
    apply_overrides(f, Pointer("/experiment_overrides"), c.experiment);
  }
  c.profile = std::make_shared<const Profile>(load_profile(c.experiment.profile_path));
  c.experiment_title = c.experiment.title;
  c.profile_label = c.experiment.profile_label;
}

// A `sparksim.plan/1` capacity plan.
void load_plan_experiment(const JsonFile& f, SensitivityConfig& c) {
  if (f.has(Pointer("/experiment_overrides"))) {
    f.fail(Pointer("/experiment_overrides"),
           "experiment_overrides reduce a sweep; a plan config is the study's size already "
           "(write a smaller one)");
  }
  try {
    c.plan = load_plan_config(c.experiment_path);
  } catch (const InputError& e) {
    f.fail(Pointer("/experiment"), "the experiment does not load:\n" + std::string(e.what()));
  }
  const PlanOptions& o = c.plan->options;
  c.experiment_title = c.plan->title;
  if (o.topology.active()) {
    c.profile_label = "topologies";
    for (const auto& t : o.topology.topologies) c.profile_label += " " + t;
    for (const auto& t : o.topology.topology_profiles) c.profile_label += " " + t;
    return;
  }
  c.profile = std::make_shared<const Profile>(load_profile(o.run.profile_path));
  c.profile_label = c.profile->label();
}

// A `sparksim.v4-topologies/1` comparison on the rows kept ("experiment_overrides": "rows"; all
// that fit without), its other reductions applied to the comparison.
void load_topology_experiment(const JsonFile& f, SensitivityConfig& c) {
  const Pointer overrides("/experiment_overrides");
  std::vector<std::string> rows;
  if (f.has(overrides / "rows")) {
    for (std::size_t i = 0; i < f.get_array(overrides / "rows").size(); ++i) {
      rows.push_back(f.get_string(overrides / "rows" / i));
    }
    if (rows.empty()) f.fail(overrides / "rows", "rows is empty; list the rows to keep");
  }
  try {
    c.topology = load_topology_study(c.experiment_path, rows);
  } catch (const InputError& e) {
    f.fail(f.has(overrides / "rows") ? overrides / "rows" : Pointer("/experiment"),
           "the experiment does not load:\n" + std::string(e.what()));
  }
  c.experiment = c.topology->comparison;
  if (f.has(overrides)) apply_overrides(f, overrides, c.experiment, true);
  c.topology->comparison = c.experiment;
  c.experiment_title = c.topology->config.title;
  c.profile_label = "DeepSeek-V4 topology rows:";
  for (const auto& row : c.topology->rows) c.profile_label += " " + row.name;
}

}  // namespace

SensitivityConfig load_sensitivity_config(const std::string& path) {
  const JsonFile f = JsonFile::load(path);
  const Pointer root("");
  f.reject_unknown_keys(root, {"schema", "title", "about", "experiment", "experiment_overrides",
                               "inputs", "break_even", "joint"});
  if (f.get_string(Pointer("/schema")) != kSensitivitySchema) {
    f.fail(Pointer("/schema"), std::string("schema must be \"") + kSensitivitySchema + "\"");
  }
  SensitivityConfig c;
  c.path = path;
  c.title = f.get_string(Pointer("/title"));
  if (f.has(Pointer("/about"))) c.about = f.get_string(Pointer("/about"), true);
  c.experiment_path = f.get_string(Pointer("/experiment"));
  const std::string schema = schema_of(c.experiment_path);
  if (schema == kPlanSchema) {
    load_plan_experiment(f, c);
  } else if (schema == kTopologySweepSchema) {
    load_topology_experiment(f, c);
  } else {
    load_sweep_experiment(f, c);
  }
  const std::string& acceptance = c.plan ? c.plan->options.run.acceptance : c.experiment.acceptance;
  const auto& inputs = f.get_array(Pointer("/inputs"));
  if (inputs.empty()) f.fail(Pointer("/inputs"), "inputs is empty");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Pointer ptr = Pointer("/inputs") / i;
    c.inputs.push_back(parse_input(f, ptr, acceptance));
    if (!seen.insert(c.inputs.back().label()).second) {
      f.fail(ptr / "input", c.inputs.back().label() + " is listed twice");
    }
  }
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const Pointer ptr = Pointer("/inputs") / i / "input";
    if (c.plan) {
      try {
        check_plan_input(*c.plan, c.inputs[i]);
      } catch (const InputError& e) {
        f.fail(ptr, e.what());
      }
      continue;
    }
    if (c.topology) {
      try {
        check_topology_input(*c.topology, c.inputs, i);
      } catch (const InputError& e) {
        f.fail(ptr, e.what());
      }
      continue;
    }
    if (c.inputs[i].kind->kind == InputKind::kRoutingImbalance) {
      try {
        (void)profile_replica(*c.profile);  // a dense target has no routing to unbalance
      } catch (const InputError& e) {
        f.fail(ptr, e.what());
      }
    }
    check_input_runs(f, ptr, c, i);
  }
  if (f.has(Pointer("/break_even"))) c.break_even = f.get_bool(Pointer("/break_even"));
  if (f.has(Pointer("/joint"))) {
    const Pointer j("/joint");
    f.reject_unknown_keys(j, {"samples", "seed"});
    JointDesign d;
    d.samples = static_cast<std::size_t>(f.get_int(j / "samples", 4, 100000));
    if (f.has(j / "seed")) {
      d.seed = static_cast<std::uint64_t>(f.get_int(j / "seed", 0, std::int64_t{1} << 53));
    }
    bool numeric = false;
    for (const auto& in : c.inputs) numeric = numeric || !in.kind->categorical;
    if (!numeric) f.fail(j, "a joint design needs at least one numeric input");
    c.joint = d;
  }
  return c;
}

}  // namespace sparksim
