// Plan uncertainty: declared input ranges -> Latin-hypercube samples -> one replica search per
// sample -> the range of GPUs needed and the probability that a fleet size meets the SLO.
#include "experiments/plan/plan_uncertainty.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "common/csv_row.hpp"
#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "experiments/run/problem_list.hpp"
#include "experiments/sensitivity/latin_hypercube.hpp"
#include "experiments/sweep/sweep_config.hpp"
#include "profiles/drafter.hpp"
#include "profiles/profile_io.hpp"
#include "sim/acceptance/acceptance_scenarios.hpp"

namespace sparksim {

namespace {

constexpr std::int64_t kMaxSamples = 1000;

bool is_cost_input(const InputKindInfo& kind) {
  return kind.kind == InputKind::kDraftCost || kind.kind == InputKind::kVerifyCost ||
         kind.kind == InputKind::kHostOverhead;
}

bool needs_profile(const PlanOptions& o) {
  return std::any_of(o.uncertain.begin(), o.uncertain.end(), [](const SensitivityInput& in) {
    return is_cost_input(*in.kind) || in.kind->kind == InputKind::kRoutingImbalance;
  });
}

std::shared_ptr<const Profile> plan_profile(const PlanOptions& o) {
  if (!needs_profile(o) || o.topology.active()) return nullptr;
  if (o.run.profile) return o.run.profile;
  return std::make_shared<const Profile>(load_profile(o.run.profile_path));
}

double parse_bound(const std::string& text, const std::string& what) {
  try {
    std::size_t used = 0;
    const double v = std::stod(what, &used);
    if (used == what.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw InputError("--uncertain '" + text + "': '" + what + "' is not a number");
}

std::string value_text(const SensitivityInput& in, double v) {
  if (in.kind->categorical) return v == kAtLow ? in.low_choice : in.high_choice;
  return format_number(v);
}

// The replicas each sample needs for one plan, unmet (nullopt) last.
std::vector<std::optional<std::int64_t>> sorted_needs(const PlanResult& r, std::size_t plan) {
  std::vector<std::optional<std::int64_t>> needs;
  for (const auto& s : r.uncertainty) needs.push_back(s.replicas[plan]);
  std::sort(needs.begin(), needs.end(), [](const auto& a, const auto& b) {
    if (!a || !b) return a.has_value() && !b.has_value();
    return *a < *b;
  });
  return needs;
}

std::int64_t samples_meeting(const std::vector<std::optional<std::int64_t>>& needs,
                             std::int64_t replicas) {
  return std::count_if(needs.begin(), needs.end(),
                       [&](const auto& n) { return n.has_value() && *n <= replicas; });
}

// The index of the uncertain input that varies the acceptance scenario, if any.
std::optional<std::size_t> scenario_input(const PlanOptions& o) {
  for (std::size_t i = 0; i < o.uncertain.size(); ++i) {
    if (o.uncertain[i].kind->kind == InputKind::kAcceptanceScenario) return i;
  }
  return std::nullopt;
}

// "3 replicas (24 GPUs)", "2-3 replicas (16-24 GPUs)", with ", unmet in 1" when some sample
// needed more than the search's bound.
std::string needs_text(const std::vector<std::optional<std::int64_t>>& needs,
                       std::int64_t gpus_per_replica) {
  std::vector<std::int64_t> met;
  for (const auto& n : needs) {
    if (n) met.push_back(*n);
  }
  if (met.empty()) return "unmet";
  const auto [lo, hi] = std::minmax_element(met.begin(), met.end());
  const auto range = [](std::int64_t a, std::int64_t b) {
    return a == b ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(b);
  };
  std::string text = range(*lo, *hi) + (*hi == 1 ? " replica (" : " replicas (") +
                     range(*lo * gpus_per_replica, *hi * gpus_per_replica) +
                     (*hi * gpus_per_replica == 1 ? " GPU)" : " GPUs)");
  if (met.size() < needs.size()) {
    text += ", unmet in " + std::to_string(needs.size() - met.size());
  }
  return text;
}

}  // namespace

std::string scenario_note(const PlanOptions& o, const PlanResult& r) {
  if (!is_scenario_target(r.target)) return "";
  const bool plans_dspark = std::any_of(r.plans.begin(), r.plans.end(), [](const PolicyPlan& p) {
    return parse_drafter(p.drafter).family == DrafterFamily::kDspark;
  });
  if (!plans_dspark) return "";
  const ScenarioBand band = scenario_band(r.target, o.run.acceptance);
  const std::string head = "acceptance DSpark on " + r.target + ": ";
  if (band.scenarios.empty()) return head + "no band over acceptance scenarios: " + band.why_none;
  if (scenario_input(o)) {
    return head + "the scenario varies with --uncertain (default " +
           std::string(kDefaultV4Scenario) + "); each plan's 'by scenario' line gives the band";
  }
  std::string choices;
  for (const std::string& name : band.scenarios) choices += (choices.empty() ? "" : "|") + name;
  return head + "scenario " + std::string(kDefaultV4Scenario) +
         " (the default prior, docs/moe.md); for the band over scenarios add --uncertain "
         "'acceptance_scenario=" +
         choices + "' --uncertainty-samples " + std::to_string(band.scenarios.size()) +
         " (one search per scenario)";
}

std::string scenario_answer(const PlanOptions& o, const PlanResult& r, std::size_t plan) {
  const auto input = scenario_input(o);
  if (!input || r.uncertainty.empty()) return "";
  const SensitivityInput& in = o.uncertain[*input];
  std::string line = "  by scenario:";
  for (const bool high : {false, true}) {
    const std::string& name = high ? in.high_choice : in.low_choice;
    std::vector<std::optional<std::int64_t>> needs;
    for (const UncertaintySample& s : r.uncertainty) {
      if ((s.values[*input] == kAtHigh) == high) needs.push_back(s.replicas[plan]);
    }
    line += std::string(high ? ";" : "") + " " + name +
            (name == kDefaultV4Scenario ? " (default)" : "") + " " +
            (needs.empty() ? std::string("not sampled")
                           : needs_text(needs, r.plans[plan].gpus_per_replica));
  }
  return line;
}

SensitivityInput parse_uncertain_input(const std::string& text) {
  const std::size_t eq = text.find('=');
  const std::string name = text.substr(0, eq);
  SensitivityInput in;
  in.kind = find_input_kind(name);
  if (eq == std::string::npos || in.kind == nullptr) {
    throw InputError("--uncertain '" + text +
                     "': expected NAME=LOW:HIGH or NAME=A|B with NAME one of " +
                     input_kind_names());
  }
  const std::string range = text.substr(eq + 1);
  const char separator = in.kind->categorical ? '|' : ':';
  const std::size_t cut = range.find(separator);
  if (cut == std::string::npos) {
    throw InputError("--uncertain '" + text + "': " + name + " takes " +
                     (in.kind->categorical ? "A|B (two of its values)" : "LOW:HIGH"));
  }
  const std::string low = range.substr(0, cut), high = range.substr(cut + 1);
  if (in.kind->categorical) {
    for (const std::string& v : {low, high}) {
      if (!is_choice_of(*in.kind, v)) {
        throw InputError("--uncertain '" + text + "': '" + v + "' is not a value of " + name);
      }
    }
    in.low_choice = low;
    in.high_choice = high;
    return in;
  }
  in.low = parse_bound(text, low);
  in.high = parse_bound(text, high);
  if (in.low < in.kind->min || in.high > in.kind->max) {
    throw InputError("--uncertain '" + text + "': " + name + " must lie in [" +
                     format_number(in.kind->min) + ", " + format_number(in.kind->max) + "]");
  }
  if (!(in.low < in.high)) throw InputError("--uncertain '" + text + "': LOW must be below HIGH");
  return in;
}

PlanOptions options_at(const PlanOptions& o, std::shared_ptr<const Profile> profile,
                       const std::vector<double>& values) {
  SweepConfig base;
  base.acceptance = o.run.acceptance;
  base.sps = o.run.sps;
  // With --topologies each candidate composes its own profile: routing imbalance is then the
  // composition's own knob (--expert-imbalance), not an edit of a loaded profile.
  std::vector<double> profile_values = values;
  std::optional<double> topology_imbalance;
  for (std::size_t i = 0; i < o.uncertain.size(); ++i) {
    if (o.uncertain[i].kind->kind != InputKind::kRoutingImbalance || !o.topology.active()) continue;
    if (!std::isnan(values[i])) topology_imbalance = values[i];
    profile_values[i] = nominal_value();
  }
  const AppliedInputs applied =
      applied_inputs(base, std::move(profile), o.uncertain, profile_values);
  PlanOptions s = o;
  if (topology_imbalance) s.topology.expert_imbalance = *topology_imbalance;
  s.uncertain.clear();
  s.run.acceptance = applied.config.acceptance;
  s.run.sps = applied.config.sps;
  if (applied.adjust) applied.adjust(s.run);
  // applied_inputs scales the profile's own host overhead; an explicit --host-overhead-us is the
  // nominal instead.
  for (std::size_t i = 0; i < o.uncertain.size(); ++i) {
    if (o.uncertain[i].kind->kind == InputKind::kHostOverhead && o.run.host_overhead_us &&
        !std::isnan(values[i])) {
      s.run.host_overhead_us = *o.run.host_overhead_us * values[i];
    }
  }
  return s;
}

void check_uncertain_inputs(const PlanOptions& o) {
  if (o.uncertain.empty()) return;
  ProblemList problems;
  if (o.uncertainty_samples < 2 || o.uncertainty_samples > kMaxSamples) {
    problems.add("--uncertainty-samples must be in [2, " + std::to_string(kMaxSamples) + "]");
  }
  for (const SensitivityInput& in : o.uncertain) {
    if (varies_acceptance_model(*in.kind) && o.run.acceptance.rfind("calibrated", 0) != 0) {
      problems.add("--uncertain " + in.label() +
                   ": varies the calibrated acceptance model; --acceptance is '" +
                   o.run.acceptance + "'");
    }
    if (is_cost_input(*in.kind) && o.topology.active()) {
      problems.add("--uncertain " + in.label() +
                   ": not with topologies (each composes its own profile); use "
                   "--topology-profile files instead");
    }
  }
  problems.throw_if_any();
  const auto profile = plan_profile(o);
  for (std::size_t i = 0; i < o.uncertain.size(); ++i) {
    const SensitivityInput& in = o.uncertain[i];
    for (const bool high : {false, true}) {
      std::vector<double> values(o.uncertain.size(), nominal_value());
      values[i] = in.kind->categorical ? (high ? kAtHigh : kAtLow) : (high ? in.high : in.low);
      problems.check([&] {
        try {
          check_plan(options_at(o, profile, values));
        } catch (const InputError& e) {
          throw InputError("--uncertain " + in.label() + " at " +
                           (high ? in.high_text() : in.low_text()) + ": " + e.what());
        }
      });
    }
  }
  problems.throw_if_any();
}

std::vector<std::vector<double>> uncertainty_design(const PlanOptions& o) {
  const auto unit = latin_hypercube(static_cast<std::size_t>(o.uncertainty_samples),
                                    o.uncertain.size(), o.uncertainty_seed);
  std::vector<std::vector<double>> design;
  for (const auto& row : unit) {
    std::vector<double> values;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const SensitivityInput& in = o.uncertain[i];
      values.push_back(in.kind->categorical ? (row[i] < 0.5 ? kAtLow : kAtHigh)
                                            : in.low + row[i] * (in.high - in.low));
    }
    design.push_back(std::move(values));
  }
  return design;
}

std::vector<UncertaintySample> sample_plan_uncertainty(const PlanOptions& o,
                                                       const PlanResult& nominal) {
  const auto profile = plan_profile(o);
  std::vector<UncertaintySample> samples;
  for (const auto& values : uncertainty_design(o)) {
    const PlanResult r = search_plan(options_at(o, profile, values));
    UncertaintySample s;
    s.values = values;
    for (std::size_t p = 0; p < nominal.plans.size(); ++p)
      s.replicas.push_back(r.plans[p].replicas);
    samples.push_back(std::move(s));
  }
  return samples;
}

std::string uncertainty_csv(const PlanOptions& o, const PlanResult& r) {
  std::string out = "sample";
  // Appended piece by piece: GCC 12's -Wrestrict misfires on "," + std::string temporaries.
  for (const auto& in : o.uncertain) {
    out += ',';
    out += in.label();
  }
  out += ',';
  out += kPlanNameColumns;
  out += ",replicas,gpus\n";
  for (std::size_t s = 0; s < r.uncertainty.size(); ++s) {
    const UncertaintySample& sample = r.uncertainty[s];
    for (std::size_t p = 0; p < r.plans.size(); ++p) {
      CsvRow row(out);
      row.integer(static_cast<std::int64_t>(s + 1));
      for (std::size_t i = 0; i < o.uncertain.size(); ++i) {
        row.text(value_text(o.uncertain[i], sample.values[i]));
      }
      plan_name_cells(row, r.plans[p]);
      if (sample.replicas[p]) {
        row.integer(*sample.replicas[p]).integer(*sample.replicas[p] * r.plans[p].gpus_per_replica);
      } else {
        row.text("").text("");
      }
      row.end();
    }
  }
  return out;
}

std::string meet_probability_csv(const PlanResult& r) {
  std::string out =
      std::string(kPlanNameColumns) + ",replicas,gpus,samples_meeting,samples,p_meets\n";
  const auto total = static_cast<std::int64_t>(r.uncertainty.size());
  for (std::size_t p = 0; p < r.plans.size(); ++p) {
    const auto needs = sorted_needs(r, p);
    if (needs.empty() || !needs.front()) continue;  // no sample met: no fleet size to list
    std::int64_t largest = *needs.front();
    for (const auto& n : needs) largest = n ? *n : largest;
    for (std::int64_t n = *needs.front(); n <= largest; ++n) {
      CsvRow row(out);
      plan_name_cells(row, r.plans[p]);
      row.integer(n).integer(n * r.plans[p].gpus_per_replica);
      row.integer(samples_meeting(needs, n)).integer(total);
      row.ratio(samples_meeting(needs, n), total, 4).end();
    }
  }
  return out;
}

std::string uncertainty_answer(const PlanResult& r, std::size_t plan) {
  const auto needs = sorted_needs(r, plan);
  const std::int64_t gpus = r.plans[plan].gpus_per_replica;
  const auto total = static_cast<std::int64_t>(needs.size());
  std::string line = "  uncertain (" + std::to_string(total) + " samples): ";
  if (needs.empty() || !needs.front()) {
    return line + "unmet within " + std::to_string(r.max_replicas) + " replicas in every sample";
  }
  const auto& median = needs[(needs.size() - 1) / 2];
  line += needs_text(needs, gpus) + ", lower median " +
          (median ? std::to_string(*median) : std::string("unmet"));
  line += "; meets the SLO with";
  // Only the sizes some sample needs exactly: the share changes only there.
  for (std::size_t i = 0; i < needs.size() && needs[i]; ++i) {
    const std::int64_t n = *needs[i];
    const bool more = i + 1 < needs.size() && needs[i + 1];
    if (more && needs[i + 1] == needs[i]) continue;
    char share[32];
    std::snprintf(
        share, sizeof share, " %lld: %.0f%%", static_cast<long long>(n),
        100.0 * static_cast<double>(samples_meeting(needs, n)) / static_cast<double>(total));
    line += share;
    if (more) line += ",";
  }
  return line;
}

}  // namespace sparksim
