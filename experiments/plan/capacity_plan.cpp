// SLO parsing, the replica search and the `sparksim plan` driver.
#include "experiments/plan/capacity_plan.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "common/csv_row.hpp"
#include "common/csv_table.hpp"
#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/staged_directory.hpp"
#include "common/text_file.hpp"
#include "common/version.hpp"
#include "experiments/run/parallel_runner.hpp"
#include "experiments/run/problem_list.hpp"
#include "experiments/sweep/sweep_config.hpp"
#include "profiles/profile_io.hpp"

namespace sparksim {

namespace {

std::string fmt(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

bool parse_double(std::string_view s, double& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(out);
}

struct MetricName {
  const char* prefix;  // before the statistic
  const char* suffix;  // after it ("" for tok_s_per_user)
  SloTerm::Metric metric;
};
constexpr MetricName kMetrics[] = {
    {"ttft_", "_ms", SloTerm::Metric::kTtftMs},
    {"tpot_", "_ms", SloTerm::Metric::kTpotMs},
    {"e2e_", "_s", SloTerm::Metric::kE2eS},
    {"queue_", "_ms", SloTerm::Metric::kQueueMs},
    {"tok_s_per_user_", "", SloTerm::Metric::kTokSPerUser},
};
constexpr const char* kValidNames =
    "ttft_pQ_ms, tpot_pQ_ms, e2e_pQ_s, queue_pQ_ms, tok_s_per_user_pQ (Q in (0, 100), e.g. p99, "
    "p99.9), or _mean in place of _pQ";

SloTerm parse_term(const std::string& item) {
  const auto op = item.find_first_of("<>");
  if (op == std::string::npos || op + 1 >= item.size() || item[op + 1] != '=') {
    throw InputError("--slo: '" + item + "' must be NAME<=VALUE or NAME>=VALUE");
  }
  SloTerm t;
  t.name = item.substr(0, op);
  t.at_most = item[op] == '<';
  if (!parse_double(std::string_view(item).substr(op + 2), t.bound)) {
    throw InputError("--slo: '" + item + "': '" + item.substr(op + 2) + "' is not a number");
  }
  for (const auto& m : kMetrics) {
    const std::string prefix = m.prefix, suffix = m.suffix;
    if (t.name.rfind(prefix, 0) != 0 || t.name.size() < prefix.size() + suffix.size() ||
        t.name.compare(t.name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    const std::string stat =
        t.name.substr(prefix.size(), t.name.size() - prefix.size() - suffix.size());
    t.metric = m.metric;
    if (stat == "mean") {
      t.mean = true;
      return t;
    }
    if (stat.size() > 1 && stat[0] == 'p' &&
        parse_double(std::string_view(stat).substr(1), t.percentile)) {
      if (!(t.percentile > 0 && t.percentile < 100)) {
        throw InputError("--slo: '" + item + "': percentile " + format_number(t.percentile) +
                         " must be in (0, 100)");
      }
      return t;
    }
  }
  throw InputError("--slo: '" + item + "': unknown metric '" + t.name + "'; valid: " + kValidNames);
}

const std::vector<double>& samples_of(const RequestSamples& s, SloTerm::Metric m) {
  switch (m) {
    case SloTerm::Metric::kTtftMs:
      return s.ttft_ms;
    case SloTerm::Metric::kTpotMs:
      return s.tpot_ms;
    case SloTerm::Metric::kE2eS:
      return s.e2e_s;
    case SloTerm::Metric::kQueueMs:
      return s.queue_ms;
    case SloTerm::Metric::kTokSPerUser:
      return s.tok_s_per_user;
  }
  return s.ttft_ms;
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

double SloTerm::measure(const RequestSamples& samples) const {
  const auto& v = samples_of(samples, metric);
  return mean ? sample_mean(v) : sample_percentile(v, percentile);
}

std::string SloTerm::text() const {
  return name + (at_most ? "<=" : ">=") + format_number(bound);
}

std::vector<SloTerm> parse_slo_spec(const std::string& text) {
  ProblemList problems;
  std::vector<SloTerm> terms;
  std::set<std::string> seen;
  if (text.empty()) {
    problems.add("--slo: empty; e.g. --slo \"ttft_p99_ms<=2000,tok_s_per_user_p50>=80\"");
  }
  std::size_t pos = 0;
  while (!text.empty() && pos <= text.size()) {
    auto comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(pos, comma - pos);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    problems.check([&] {
      SloTerm t = parse_term(item);
      if (!seen.insert(t.name + (t.at_most ? "<=" : ">=")).second) {
        throw InputError("--slo: '" + item + "' bounds " + t.name + " the same way twice");
      }
      terms.push_back(std::move(t));
    });
    pos = comma + 1;
  }
  problems.throw_if_any();
  return terms;
}

std::optional<std::int64_t> search_min_replicas(std::int64_t max_n,
                                                const std::function<bool(std::int64_t)>& meets) {
  if (max_n < 1) return std::nullopt;
  std::int64_t failing = 0;  // largest count known to fail (0: none tried)
  std::int64_t passing = 0;  // smallest count known to pass
  for (std::int64_t n = 1;; n = std::min(n * 2, max_n)) {
    if (meets(n)) {
      passing = n;
      break;
    }
    failing = n;
    if (n == max_n) return std::nullopt;
  }
  while (passing - failing > 1) {
    const std::int64_t mid = failing + (passing - failing) / 2;
    if (meets(mid)) {
      passing = mid;
    } else {
      failing = mid;
    }
  }
  return passing;
}

const PlanEvaluation* PolicyPlan::at(std::int64_t replicas) const {
  for (const auto& e : evaluations) {
    if (e.fleet.replicas == replicas) return &e;
  }
  return nullptr;
}

PlanResult run_plan(const PlanOptions& o) {
  ProblemList problems;
  PlanResult result;
  problems.check([&] { result.terms = parse_slo_spec(o.slo); });
  if (o.policies.empty()) {
    problems.add(
        "--policies: give at least one, e.g. --policies mtp1+static:k=1 "
        "dspark-7+async-topk");
  }
  if (o.out_dir.empty()) problems.add("--out DIR is required");
  if (o.max_replicas < 1 || o.max_replicas > 100000) {
    problems.add("--max-replicas must be in [1, 100000]");
  }
  if (o.jobs < 0) problems.add("--jobs must be >= 1 (or 0 for every hardware thread)");
  if (o.run.closed_loop_users > 0) {
    problems.add(
        "--closed-loop-users: a capacity plan serves a fixed stream of arrivals; give "
        "--trace or open-loop --synthetic");
  }
  // Every router with every layout; a bad name or share is reported once.
  std::vector<std::unique_ptr<FleetSimulator>> fleets;
  if (o.routers.empty()) problems.add("--router: give at least one");
  if (o.prefill_shares.empty()) problems.add("--prefill-share: give at least one");
  for (const auto& router : o.routers) {
    problems.check([&] { make_fleet_simulator(router); });
  }
  for (double share : o.prefill_shares) {
    problems.check([&] { make_fleet_simulator("round-robin", share); });
  }
  if (problems.empty()) {
    std::set<std::string> fleet_labels;
    for (const auto& router : o.routers) {
      for (double share : o.prefill_shares) {
        fleets.push_back(make_fleet_simulator(router, share));
        if (!fleet_labels.insert(router + " " + fleets.back()->layout()).second) {
          problems.add("--router/--prefill-share: '" + router + "' with " +
                       fleets.back()->layout() + " is given twice");
        }
      }
    }
  }

  // The topologies compared (each its own profile), or the one profile of --profile.
  std::vector<TopologyCandidate> candidates;
  if (o.topology.active()) {
    if (!o.run.profile_path.empty()) {
      problems.add("--profile: with --topologies or --topology-profile each topology has its own");
    }
    problems.check([&] { candidates = topology_candidates(o.topology); });
  } else {
    candidates.emplace_back();
    candidates.back().profile_path = o.run.profile_path;
  }
  // setups[c][p]: candidate c's policy p (empty for a topology that does not fit).
  std::vector<std::vector<RunSetup>> setups(candidates.size());
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const TopologyCandidate& candidate = candidates[c];
    if (o.topology.active() && !candidate.profile) continue;
    std::set<std::string> seen;
    for (const auto& entry : o.policies) {
      const auto [drafter, policy] = split_entry(entry, o.default_drafter);
      RunOptions run = o.run;
      run.drafter = drafter;
      run.policy = policy;
      run.profile = candidate.profile;
      if (candidate.profile) run.profile_path = candidate.profile_path;
      try {
        setups[c].push_back(prepare_run(run));
        const std::string label = setups[c].back().engine.drafter.name + " + " + policy;
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
  }
  // A layout the profile or engine options cannot serve (a prefill pool needs KV bytes per
  // token; --prefill separate excludes it) is reported now, not in the middle of the search.
  const RunSetup* first_setup = nullptr;
  for (const auto& fleet : fleets) {
    for (const auto& per_candidate : setups) {
      for (const auto& setup : per_candidate) {
        if (first_setup == nullptr) first_setup = &setup;
        problems.check([&] { fleet->check(setup); });
      }
    }
  }
  problems.throw_if_any();
  const std::int64_t requests =
      first_setup ? static_cast<std::int64_t>(first_setup->trace.requests.size()) : 0;
  if (first_setup != nullptr && requests == 0) {
    throw InputError("the workload has no requests: nothing to plan for");
  }

  if (first_setup != nullptr && !o.topology.active()) {
    result.profile_label = first_setup->profile.label();
    result.profile_source = first_setup->profile.provenance.source;
  }
  for (std::size_t c = 0; o.topology.active() && c < candidates.size(); ++c) {
    if (!candidates[c].profile) continue;
    const Profile& profile = *candidates[c].profile;
    result.profile_label +=
        (result.profile_label.empty() ? "" : "; ") + candidates[c].name + ": " + profile.label();
    const std::string& source = profile.provenance.source;
    if (("+" + result.profile_source + "+").find("+" + source + "+") == std::string::npos) {
      result.profile_source += (result.profile_source.empty() ? "" : "+") + source;
    }
  }
  result.routers = o.routers;
  for (double share : o.prefill_shares) {
    result.layouts.push_back(make_fleet_simulator("round-robin", share)->layout());
  }
  result.max_replicas = std::min<std::int64_t>(o.max_replicas, std::max<std::int64_t>(requests, 1));
  if (o.topology.active()) result.topologies = candidates;
  const int jobs = o.jobs > 0 ? o.jobs : default_jobs();

  for (std::size_t p = 0; p < o.policies.size(); ++p) {
    for (const auto& fleet : fleets) {
      std::vector<TopologyOutcome> outcomes;
      for (std::size_t c = 0; c < candidates.size(); ++c) {
        const TopologyCandidate& candidate = candidates[c];
        PolicyPlan plan;
        plan.router = fleet->router();
        plan.layout = fleet->layout();
        plan.topology = candidate.name;
        plan.engines_per_replica = candidate.engines_per_replica;
        plan.infeasible_memory = candidate.infeasible_memory;
        if (candidate.profile) plan.profile_source = candidate.profile->provenance.source;
        if (setups[c].empty()) {  // does not fit: named after the first feasible topology's
          const auto [drafter, policy] = split_entry(o.policies[p], o.default_drafter);
          plan.drafter = drafter;
          plan.policy = policy;
          if (first_setup != nullptr) {
            for (const auto& other : setups) {
              if (!other.empty()) {
                plan.drafter = other[p].engine.drafter.name;
                plan.policy = other[p].policy_spec.text();
                break;
              }
            }
          }
          plan.gpus_per_replica = candidate.gpus_per_replica;
        } else {
          const RunSetup& setup = setups[c][p];
          plan.profile_source = setup.profile.provenance.source;
          plan.drafter = setup.engine.drafter.name;
          plan.policy = setup.policy_spec.text();
          plan.gpus_per_replica = candidate.engines_per_replica * setup.gpus;
          // A replica count whose engines outnumber the requests only adds idle GPUs.
          const std::int64_t ranks = candidate.engines_per_replica;
          plan.max_replicas = std::min<std::int64_t>(
              result.max_replicas, std::max<std::int64_t>(1, (requests + ranks - 1) / ranks));
          if (o.topology.active()) {
            plan.max_replicas = std::min<std::int64_t>(plan.max_replicas,
                                                       o.topology.max_gpus / plan.gpus_per_replica);
          }
          plan.replicas = search_min_replicas(plan.max_replicas, [&](std::int64_t n) {
            FleetOutcome outcome = fleet->simulate(setup, n * ranks, jobs);
            outcome.replicas = n;
            plan.evaluations.push_back(judge(result.terms, std::move(outcome)));
            return plan.evaluations.back().meets;
          });
        }
        TopologyOutcome t;
        t.topology = candidate.name;
        t.gpus_per_replica = static_cast<int>(plan.gpus_per_replica);
        t.replicas = plan.replicas;
        t.infeasible_memory = plan.infeasible_memory;
        t.max_replicas = plan.max_replicas;
        if (plan.replicas) t.gpus = *plan.replicas * plan.gpus_per_replica;
        if (const PlanEvaluation* e = plan.at(plan.max_replicas); e && !plan.replicas) {
          t.miss_reason = e->reason;
        }
        outcomes.push_back(std::move(t));
        result.plans.push_back(std::move(plan));
      }
      if (o.topology.active()) result.verdicts.push_back(choose_topology(outcomes));
    }
  }

  // Outputs.
  std::string plan_csv = std::string(kPlanNameColumns) + ",profile_source,status,replicas,gpus";
  std::string search_csv =
      std::string(kPlanNameColumns) + ",replicas,engines,prefill_replicas,gpus,meets";
  for (const auto& t : result.terms) {
    plan_csv += "," + t.name;
    search_csv += "," + t.name;
  }
  plan_csv +=
      ",requests_total,requests_completed,throughput_tok_s,throughput_tok_s_per_gpu,"
      "replica_counts_simulated\n";
  search_csv +=
      ",requests_total,requests_completed,requests_rejected_kv,throughput_tok_s,"
      "throughput_tok_s_per_gpu,reason\n";
  for (const auto& plan : result.plans) {
    const PlanEvaluation* e = plan.replicas ? plan.at(*plan.replicas) : nullptr;
    CsvRow r(plan_csv);
    plan_name_cells(r, plan)
        .text(plan.profile_source)
        .text(!plan.infeasible_memory.empty() ? "infeasible_memory"
              : plan.replicas                 ? "met"
                                              : "unmet_within_max_replicas");
    if (e != nullptr) {
      r.integer(e->fleet.replicas).integer(e->fleet.gpus);
      for (double v : e->values) r.fixed(v, 6);
      r.integer(e->fleet.requests_total)
          .integer(e->fleet.requests_completed)
          .fixed(e->fleet.throughput_tok_s, 6)
          .fixed(e->fleet.throughput_tok_s_per_gpu, 6);
    } else {
      r.text("").text("");
      for (std::size_t i = 0; i < result.terms.size(); ++i) r.text("");
      r.text("").text("").text("").text("");
    }
    r.integer(static_cast<std::int64_t>(plan.evaluations.size())).end();
    std::vector<const PlanEvaluation*> by_count;
    for (const auto& ev : plan.evaluations) by_count.push_back(&ev);
    std::stable_sort(by_count.begin(), by_count.end(), [](const auto* a, const auto* b) {
      return a->fleet.replicas < b->fleet.replicas;
    });
    for (const PlanEvaluation* evp : by_count) {
      const PlanEvaluation& ev = *evp;
      CsvRow s(search_csv);
      plan_name_cells(s, plan)
          .integer(ev.fleet.replicas)
          .integer(ev.fleet.replicas * plan.engines_per_replica)
          .integer(ev.fleet.prefill_replicas)
          .integer(ev.fleet.gpus)
          .integer(ev.meets ? 1 : 0);
      for (double v : ev.values) s.fixed(v, 6);
      s.integer(ev.fleet.requests_total)
          .integer(ev.fleet.requests_completed)
          .integer(ev.fleet.requests_rejected_kv)
          .fixed(ev.fleet.throughput_tok_s, 6)
          .fixed(ev.fleet.throughput_tok_s_per_gpu, 6)
          .text(csv_cell(ev.reason))
          .end();
    }
  }
  nlohmann::ordered_json config;
  config["sparksim_version"] = sparksim_version();
  config["sparksim_git_sha"] = sparksim_git_sha();
  config["profile"] = o.run.profile_path;
  config["profile_source"] = result.profile_source;
  config["profile_label"] = result.profile_label;
  config["trace"] = o.run.trace_path;
  config["trace_format"] = o.run.trace_format;
  config["domain_override"] = o.run.domain;
  config["spread_buckets"] = o.run.spread_buckets;
  config["synthetic"] = o.run.synthetic;
  config["rate_scale"] = o.run.rate_scale;
  config["max_requests"] = o.run.max_requests;
  config["requests"] = requests;
  config["slo"] = nlohmann::ordered_json::array();
  for (const auto& t : result.terms) config["slo"].push_back(t.text());
  config["routers"] = result.routers;
  config["layouts"] = result.layouts;
  config["max_replicas"] = result.max_replicas;
  if (o.topology.active()) {
    const TopologyPlanOptions& t = o.topology;
    auto& topology = config["topology_search"];
    topology["target"] = t.target;
    topology["gpu"] = t.gpu;
    topology["topologies"] = t.topologies;
    topology["topology_profiles"] = t.topology_profiles;
    topology["expert_format"] = t.expert_format;
    topology["gpus_per_node"] = t.gpus_per_node;
    topology["expert_imbalance"] = t.expert_imbalance;
    topology["two_batch_overlap"] = t.two_batch_overlap;
    topology["planned_requests"] = t.planned_requests;
    topology["max_gpus"] = t.max_gpus;
  }
  config["policies"] = nlohmann::ordered_json::array();
  for (const auto& p : result.plans) config["policies"].push_back(p.drafter + "+" + p.policy);
  config["acceptance"] = o.run.acceptance;
  config["acceptance_log"] = o.run.acceptance_log;
  config["seed"] = o.run.seed;
  config["engine_preset"] = o.run.engine;
  config["max_running"] = o.run.max_running;
  config["max_batch_tokens"] = o.run.max_batch_tokens;
  config["prefill"] = o.run.prefill;
  config["sps"] = o.run.sps;
  config["kv_capacity_tokens"] = o.run.kv_capacity_tokens;
  // The --host-overhead-us override; null: each policy pays the profile's host_overhead_us.
  config["host_overhead_us_override"] = nullptr;
  if (o.run.host_overhead_us) config["host_overhead_us_override"] = *o.run.host_overhead_us;

  std::string out_dir = std::filesystem::path(o.out_dir).lexically_normal().string();
  while (out_dir.size() > 1 && out_dir.back() == '/') out_dir.pop_back();
  StagedDirectory dir(out_dir);
  write_file_bytes(dir.file("plan.csv"), plan_csv);
  write_file_bytes(dir.file("search.csv"), search_csv);
  write_file_bytes(dir.file("config.json"), format_json(config));
  if (o.topology.active()) {
    write_file_bytes(dir.file("topology.csv"), topology_csv(result));
    // The composed profiles, so `sparksim cluster --profile` can serve the chosen fleet.
    for (const auto& c : result.topologies) {
      if (!c.profile || c.profile_path.rfind("composed:", 0) != 0) continue;
      std::filesystem::create_directories(dir.file("profiles"));
      write_file_bytes(dir.file("profiles/" + c.name + ".json"), format_profile(*c.profile));
    }
  }
  dir.commit();
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
