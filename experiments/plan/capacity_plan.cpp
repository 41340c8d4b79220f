// The replica search and the `sparksim plan` driver (the SLO terms: slo_spec.cpp).
#include "experiments/plan/capacity_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "common/csv_row.hpp"
#include "common/csv_table.hpp"
#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/staged_directory.hpp"
#include "common/text_file.hpp"
#include "common/version.hpp"
#include "experiments/plan/plan_outputs.hpp"
#include "experiments/plan/plan_uncertainty.hpp"
#include "experiments/run/parallel_runner.hpp"
#include "experiments/run/problem_list.hpp"
#include "experiments/sweep/sweep_config.hpp"
#include "profiles/profile_io.hpp"
#include "sim/cluster/subprocess.hpp"

namespace sparksim {

namespace {

std::string fmt(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

// Splits "drafter+policy"; a bare policy takes the default drafter.
std::pair<std::string, std::string> split_entry(const std::string& entry,
                                                const std::string& default_drafter) {
  const auto plus = entry.find('+');
  if (plus == std::string::npos) return {default_drafter, entry};
  return {entry.substr(0, plus), entry.substr(plus + 1)};
}

PlanEvaluation judge(const std::vector<SloTerm>& terms, FleetOutcome fleet) {
  PlanEvaluation e;
  if (fleet.stopped_at) {  // a certain miss: nothing was measured
    e.values.assign(terms.size(), std::nan(""));
    e.reason = fleet.stop_reason;
    e.fleet = std::move(fleet);
    return e;
  }
  e.meets = true;
  if (!fleet.infeasible.empty()) {
    e.meets = false;
    e.reason = fleet.infeasible;
  } else if (fleet.requests_rejected_kv > 0) {
    e.meets = false;
    e.reason =
        std::to_string(fleet.requests_rejected_kv) + " requests never fit one replica's KV cache";
  } else if (fleet.requests_completed < fleet.requests_total) {
    e.meets = false;
    e.reason = std::to_string(fleet.requests_total - fleet.requests_completed) +
               " requests did not complete";
  }
  for (const auto& t : terms) {
    const double v = t.measure(fleet.samples);
    e.values.push_back(v);
    if (!t.holds(v)) {
      e.reason += (e.reason.empty() ? "" : "; ") + t.name + " " + fmt(v, 1) +
                  (t.at_most ? " > " : " < ") + format_number(t.bound);
      e.meets = false;
    }
  }
  fleet.samples = RequestSamples{};
  e.fleet = std::move(fleet);
  return e;
}

}  // namespace

ReplicaSearch::ReplicaSearch(std::int64_t max_n) : max_n_(max_n) {
  if (max_n >= 1) next_ = 1;
}

void ReplicaSearch::record(bool meets) {
  if (!next_) throw std::logic_error("ReplicaSearch::record after the search ended");
  const std::int64_t n = *next_;
  next_.reset();
  if (passing_ == 0) {  // doubling: 1, 2, 4, ... up to max_n
    if (meets) {
      passing_ = n;
    } else {
      failing_ = n;
      if (n == max_n_) return;  // unmet within max_n
      next_ = std::min(n * 2, max_n_);
      return;
    }
  } else if (meets) {  // bisecting between the last failing and the first passing count
    passing_ = n;
  } else {
    failing_ = n;
  }
  if (passing_ - failing_ > 1) {
    next_ = failing_ + (passing_ - failing_) / 2;
  } else {
    answer_ = passing_;
  }
}

std::optional<std::int64_t> search_min_replicas(std::int64_t max_n,
                                                const std::function<bool(std::int64_t)>& meets) {
  ReplicaSearch search(max_n);
  while (const auto n = search.next()) search.record(meets(*n));
  return search.answer();
}

const PlanEvaluation* PolicyPlan::at(std::int64_t replicas) const {
  for (const auto& e : evaluations) {
    if (e.fleet.replicas == replicas) return &e;
  }
  return nullptr;
}

namespace {

// The options checked before anything is prepared, in the order they are reported.
void check_plan_options(const PlanOptions& o, ProblemList& problems) {
  if (o.policies.empty()) {
    problems.add(
        "--policies: give at least one, e.g. --policies mtp1+static:k=1 "
        "dspark-7+async-topk");
  }
  if (o.out_dir.empty()) problems.add("--out DIR is required");
  if (o.max_replicas < 1 || o.max_replicas > 100000) {
    problems.add("--max-replicas must be in [1, 100000]");
  }
  if (o.jobs < 0) problems.add("--jobs must be >= 1 (or 0 for every CPU it may use)");
  if (o.run.closed_loop_users > 0) {
    problems.add(
        "--closed-loop-users: a capacity plan serves a fixed stream of arrivals; give "
        "--trace or open-loop --synthetic");
  }
}

// Every router with every layout; a bad name or share is reported once, a pair given twice too.
std::vector<std::unique_ptr<FleetSimulator>> plan_fleets(const PlanOptions& o,
                                                         ProblemList& problems) {
  std::vector<std::unique_ptr<FleetSimulator>> fleets;
  if (o.routers.empty()) problems.add("--router: give at least one");
  if (o.prefill_shares.empty()) problems.add("--prefill-share: give at least one");
  for (const auto& router : o.routers) {
    problems.check([&] { make_fleet_simulator(router); });
  }
  for (double share : o.prefill_shares) {
    problems.check([&] { make_fleet_simulator("round-robin", share); });
  }
  if (!problems.empty()) return fleets;
  std::set<std::string> fleet_labels;
  for (const auto& router : o.routers) {
    for (double share : o.prefill_shares) {
      fleets.push_back(make_fleet_simulator(router, share));
      if (!fleet_labels.insert(router + " " + fleets.back()->layout()).second) {
        problems.add("--router/--prefill-share: '" + router + "' with " + fleets.back()->layout() +
                     " is given twice");
      }
    }
  }
  return fleets;
}

// The topologies compared (each its own profile), or the one profile of --profile.
std::vector<TopologyCandidate> plan_candidates(const PlanOptions& o, ProblemList& problems) {
  std::vector<TopologyCandidate> candidates;
  if (o.topology.active()) {
    if (!o.run.profile_path.empty()) {
      problems.add("--profile: with --topologies or --topology-profile each topology has its own");
    }
    problems.check([&] { candidates = topology_candidates(o.topology); });
  } else {
    candidates.emplace_back();
    candidates.back().profile_path = o.run.profile_path;
    candidates.back().profile = o.run.profile;  // set only when a sample scales the profile
  }
  return candidates;
}

// Each policy entry prepared as `sparksim run` would prepare it on `candidate`'s profile.
std::vector<RunSetup> prepare_candidate_setups(const PlanOptions& o,
                                               const TopologyCandidate& candidate,
                                               ProblemList& problems) {
  std::vector<RunSetup> setups;
  std::set<std::string> seen;
  for (const auto& entry : o.policies) {
    const auto [drafter, policy] = split_entry(entry, o.default_drafter);
    RunOptions run = o.run;
    run.drafter = drafter;
    run.policy = policy;
    run.profile = candidate.profile;
    if (candidate.profile) run.profile_path = candidate.profile_path;
    try {
      setups.push_back(prepare_run(run));
      const std::string label = setups.back().engine.drafter.name + " + " + policy;
      if (!seen.insert(label).second) problems.add("--policies: '" + entry + "' is given twice");
    } catch (const InputError& e) {
      // prepare_run lists one problem per line; keep those that are about this entry once.
      for (const std::string& line : problem_lines(e)) {
        const bool entry_specific =
            line.rfind("--policy", 0) == 0 || line.rfind("--drafter", 0) == 0;
        problems.add(entry_specific ? "--policies '" + entry + "': " + line : line);
      }
    }
  }
  return setups;
}

// A layout the profile or engine options cannot serve (a prefill pool needs KV bytes per token;
// --prefill separate excludes it) is reported now, not in the middle of the search. Returns the
// first prepared setup (null when none).
const RunSetup* check_layouts(const std::vector<std::unique_ptr<FleetSimulator>>& fleets,
                              const std::vector<std::vector<RunSetup>>& setups,
                              ProblemList& problems) {
  const RunSetup* first_setup = nullptr;
  for (const auto& fleet : fleets) {
    for (const auto& per_candidate : setups) {
      for (const auto& setup : per_candidate) {
        if (first_setup == nullptr) first_setup = &setup;
        problems.check([&] { fleet->check(setup); });
      }
    }
  }
  return first_setup;
}

// The planned profiles' label and source: one profile's, or each topology's joined.
void describe_profiles(PlanResult& result, const PlanOptions& o,
                       const std::vector<TopologyCandidate>& candidates,
                       const RunSetup* first_setup) {
  if (first_setup != nullptr && !o.topology.active()) {
    result.profile_label = first_setup->profile.label();
    result.profile_source = first_setup->profile.provenance.source;
    result.target = first_setup->profile.target;
  }
  for (std::size_t c = 0; o.topology.active() && c < candidates.size(); ++c) {
    if (!candidates[c].profile) continue;
    const Profile& profile = *candidates[c].profile;
    result.target = profile.target;
    result.profile_label +=
        (result.profile_label.empty() ? "" : "; ") + candidates[c].name + ": " + profile.label();
    const std::string& source = profile.provenance.source;
    if (("+" + result.profile_source + "+").find("+" + source + "+") == std::string::npos) {
      result.profile_source += (result.profile_source.empty() ? "" : "+") + source;
    }
  }
}

// A topology that does not fit is named after the first feasible topology's policy p.
void name_unfit_plan(PolicyPlan& plan, const std::string& entry, const std::string& default_drafter,
                     const std::vector<std::vector<RunSetup>>& setups, std::size_t p) {
  const auto [drafter, policy] = split_entry(entry, default_drafter);
  plan.drafter = drafter;
  plan.policy = policy;
  for (const auto& other : setups) {
    if (!other.empty()) {
      plan.drafter = other[p].engine.drafter.name;
      plan.policy = other[p].policy_spec.text();
      break;
    }
  }
}

// A plan's search before it runs: what it simulates and with which fleet.
struct PendingSearch {
  std::size_t plan = 0;  // index in PlanResult::plans
  const FleetSimulator* fleet = nullptr;
  const RunSetup* setup = nullptr;
  std::int64_t ranks = 1;  // simulated engines per replica
};

// Names the plan of `candidate` for `setup` and bounds its search (no simulation yet).
void begin_search(PolicyPlan& plan, const PlanResult& result, const PlanOptions& o,
                  const TopologyCandidate& candidate, const RunSetup& setup,
                  std::int64_t requests) {
  plan.profile_source = setup.profile.provenance.source;
  plan.drafter = setup.engine.drafter.name;
  plan.policy = setup.policy_spec.text();
  plan.gpus_per_replica = candidate.engines_per_replica * setup.gpus;
  // A replica count whose engines outnumber the requests only adds idle GPUs.
  const std::int64_t ranks = candidate.engines_per_replica;
  plan.max_replicas = std::min<std::int64_t>(
      result.max_replicas, std::max<std::int64_t>(1, (requests + ranks - 1) / ranks));
  if (o.topology.active()) {
    plan.max_replicas =
        std::min<std::int64_t>(plan.max_replicas, o.topology.max_gpus / plan.gpus_per_replica);
  }
}

// Judges one simulated count of a search and records it in the plan.
bool record_evaluation(PolicyPlan& plan, const PlanResult& result, FleetOutcome outcome,
                       std::int64_t replicas) {
  outcome.replicas = replicas;
  plan.evaluations.push_back(judge(result.terms, std::move(outcome)));
  return plan.evaluations.back().meets;
}

// The fewest replicas that serve each pending search's setup within the SLO (doubling, then
// bisection), every count simulated recorded in its plan's evaluations, in the order tried.
// Fleets simulated in this process search one after another (each uses `jobs` threads); fleets
// that fork (the cluster layer) search side by side, up to `jobs` children at once. Each search
// tries the same counts in the same order either way, so the outputs do not depend on `jobs`.
void run_searches(const std::vector<PendingSearch>& pending, PlanResult& result, int jobs,
                  bool finish_misses) {
  const std::span<const SloTerm> stop_terms =
      finish_misses ? std::span<const SloTerm>() : std::span<const SloTerm>(result.terms);
  std::vector<ReplicaSearch> searches;
  for (const PendingSearch& s : pending) searches.emplace_back(result.plans[s.plan].max_replicas);
  std::vector<std::size_t> forked;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const PendingSearch& s = pending[i];
    PolicyPlan& plan = result.plans[s.plan];
    if (s.fleet->forks()) {
      forked.push_back(i);
      continue;
    }
    while (const auto n = searches[i].next()) {
      const FleetOutcome outcome = s.fleet->simulate(*s.setup, *n * s.ranks, jobs);
      searches[i].record(record_evaluation(plan, result, outcome, *n));
    }
    plan.replicas = searches[i].answer();
  }
  // Forking fleets: keep the pool full, the earlier searches first.
  SubprocessPool pool(jobs);
  std::vector<FleetOutcome> running(pending.size());  // per search: the outcome awaiting its child
  std::vector<bool> busy(pending.size(), false);
  while (true) {
    for (const std::size_t i : forked) {
      while (!busy[i] && !pool.full() && searches[i].next()) {
        const PendingSearch& s = pending[i];
        const std::int64_t n = *searches[i].next();
        FleetSimulator::ChildRun run = s.fleet->child_run(*s.setup, n * s.ranks, stop_terms);
        if (!run.body) {  // nothing to simulate: the outcome is final
          searches[i].record(record_evaluation(result.plans[s.plan], result, run.outcome, n));
          continue;
        }
        running[i] = std::move(run.outcome);
        pool.start(i, run.body);
        busy[i] = true;
      }
    }
    if (pool.empty()) break;
    const auto [i, text] = pool.wait_any();
    const PendingSearch& s = pending[i];
    busy[i] = false;
    s.fleet->finish_child_run(running[i], text);
    searches[i].record(record_evaluation(result.plans[s.plan], result, std::move(running[i]),
                                         *searches[i].next()));
  }
  for (const std::size_t i : forked) result.plans[pending[i].plan].replicas = searches[i].answer();
}

TopologyOutcome topology_outcome(const PolicyPlan& plan) {
  TopologyOutcome t;
  t.topology = plan.topology;
  t.gpus_per_replica = static_cast<int>(plan.gpus_per_replica);
  t.replicas = plan.replicas;
  t.infeasible_memory = plan.infeasible_memory;
  t.max_replicas = plan.max_replicas;
  if (plan.replicas) t.gpus = *plan.replicas * plan.gpus_per_replica;
  if (const PlanEvaluation* e = plan.at(plan.max_replicas); e && !plan.replicas) {
    t.miss_reason = e->reason;
  }
  return t;
}

// Everything a plan needs before its search: validated options, fleets, candidates and setups.
struct PreparedPlan {
  std::vector<std::unique_ptr<FleetSimulator>> fleets;
  std::vector<TopologyCandidate> candidates;
  std::vector<std::vector<RunSetup>> setups;  // [candidate][policy]; empty: does not fit
  const RunSetup* first_setup = nullptr;
  std::int64_t requests = 0;
};

// Validates everything first and reports every problem at once (one InputError).
PreparedPlan prepare_plan(const PlanOptions& o, PlanResult& result) {
  ProblemList problems;
  PreparedPlan prepared;
  problems.check([&] { result.terms = parse_slo_spec(o.slo); });
  check_plan_options(o, problems);
  prepared.fleets = plan_fleets(o, problems);
  prepared.candidates = plan_candidates(o, problems);
  prepared.setups.resize(prepared.candidates.size());
  for (std::size_t c = 0; c < prepared.candidates.size(); ++c) {
    const TopologyCandidate& candidate = prepared.candidates[c];
    if (o.topology.active() && !candidate.profile) continue;
    prepared.setups[c] = prepare_candidate_setups(o, candidate, problems);
  }
  prepared.first_setup = check_layouts(prepared.fleets, prepared.setups, problems);
  problems.throw_if_any();
  if (prepared.first_setup != nullptr) {
    prepared.requests = static_cast<std::int64_t>(prepared.first_setup->trace.requests.size());
    if (prepared.requests == 0)
      throw InputError("the workload has no requests: nothing to plan for");
  }
  return prepared;
}

// Searches every policy × fleet × candidate, policy-major, appending to result.plans (and, with
// topologies, one verdict per policy and fleet).
void search_plans(const PlanOptions& o, const PreparedPlan& prepared, PlanResult& result) {
  const int jobs = o.jobs > 0 ? o.jobs : default_jobs();
  const std::size_t first = result.plans.size();
  std::vector<PendingSearch> pending;
  for (std::size_t p = 0; p < o.policies.size(); ++p) {
    for (const auto& fleet : prepared.fleets) {
      for (std::size_t c = 0; c < prepared.candidates.size(); ++c) {
        const TopologyCandidate& candidate = prepared.candidates[c];
        PolicyPlan plan;
        plan.router = fleet->router();
        plan.layout = fleet->layout();
        plan.topology = candidate.name;
        plan.engines_per_replica = candidate.engines_per_replica;
        plan.infeasible_memory = candidate.infeasible_memory;
        if (candidate.profile) plan.profile_source = candidate.profile->provenance.source;
        if (prepared.setups[c].empty()) {
          name_unfit_plan(plan, o.policies[p], o.default_drafter, prepared.setups, p);
          plan.gpus_per_replica = candidate.gpus_per_replica;
        } else {
          const RunSetup& setup = prepared.setups[c][p];
          begin_search(plan, result, o, candidate, setup, prepared.requests);
          pending.push_back(PendingSearch{result.plans.size(), fleet.get(), &setup,
                                          candidate.engines_per_replica});
        }
        result.plans.push_back(std::move(plan));
      }
    }
  }
  run_searches(pending, result, jobs, o.finish_misses);
  if (!o.topology.active()) return;
  const std::size_t group = prepared.candidates.size();
  for (std::size_t g = first; g + group <= result.plans.size(); g += group) {
    std::vector<TopologyOutcome> outcomes;
    for (std::size_t c = 0; c < group; ++c)
      outcomes.push_back(topology_outcome(result.plans[g + c]));
    result.verdicts.push_back(choose_topology(outcomes));
  }
}

// Everything run_plan does between preparing and writing.
void search_prepared_plan(const PlanOptions& o, const PreparedPlan& prepared, PlanResult& result) {
  describe_profiles(result, o, prepared.candidates, prepared.first_setup);
  result.routers = o.routers;
  for (double share : o.prefill_shares) {
    result.layouts.push_back(make_fleet_simulator("round-robin", share)->layout());
  }
  result.max_replicas =
      std::min<std::int64_t>(o.max_replicas, std::max<std::int64_t>(prepared.requests, 1));
  if (o.topology.active()) result.topologies = prepared.candidates;
  search_plans(o, prepared, result);
}

}  // namespace

PlanResult run_plan(const PlanOptions& o) {
  PlanResult result;
  const PreparedPlan prepared = prepare_plan(o, result);
  check_uncertain_inputs(o);  // every sample's settings would run, before any simulation
  search_prepared_plan(o, prepared, result);
  if (!o.uncertain.empty()) result.uncertainty = sample_plan_uncertainty(o, result);
  write_plan_outputs(o, result, plan_run_configs(prepared.setups), prepared.requests);
  return result;
}

void check_plan(const PlanOptions& o) {
  PlanResult ignored;
  (void)prepare_plan(o, ignored);
}

PlanResult search_plan(const PlanOptions& o) {
  PlanResult result;
  const PreparedPlan prepared = prepare_plan(o, result);
  search_prepared_plan(o, prepared, result);
  return result;
}

CsvRow& plan_name_cells(CsvRow& row, const PolicyPlan& plan) {
  return row.text(plan.drafter)
      .text(csv_cell(plan.policy))
      .text(plan.router)
      .text(plan.layout)
      .text(plan.topology);
}

std::string plan_answer(const PlanResult& result, const PolicyPlan& plan) {
  std::string line = plan.drafter + " + " + plan.policy;
  if (!plan.topology.empty()) line += " on " + plan.topology;
  if (result.routers.size() * result.layouts.size() > 1) {
    line += " [" + plan.router + ", " + plan.layout + "]";
  }
  line += ": ";
  if (!plan.infeasible_memory.empty()) return line + "does not fit in memory";
  if (!plan.replicas) {
    const PlanEvaluation* e = plan.at(plan.max_replicas);
    line += "cannot meet the SLO with up to " + std::to_string(plan.max_replicas) + " replicas";
    if (e != nullptr) line += " (at " + std::to_string(plan.max_replicas) + ": " + e->reason + ")";
    return line;
  }
  const PlanEvaluation* e = plan.at(*plan.replicas);
  line += std::to_string(*plan.replicas) + (*plan.replicas == 1 ? " replica (" : " replicas (") +
          std::to_string(e->fleet.gpus) + (e->fleet.gpus == 1 ? " GPU)" : " GPUs)") + " meet ";
  for (std::size_t i = 0; i < result.terms.size(); ++i) {
    line += (i ? ", " : "") + result.terms[i].text() + " (" + fmt(e->values[i], 1) + ")";
  }
  if (*plan.replicas > 1) {
    if (const PlanEvaluation* below = plan.at(*plan.replicas - 1)) {
      line += "; " + std::to_string(*plan.replicas - 1) +
              (*plan.replicas - 1 == 1 ? " replica misses: " : " replicas miss: ") + below->reason;
    }
  }
  return line;
}

}  // namespace sparksim
