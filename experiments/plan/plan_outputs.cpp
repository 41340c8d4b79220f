// plan.csv, search.csv and config.json of `sparksim plan`, written through one staged directory.
#include "experiments/plan/plan_outputs.hpp"

#include <algorithm>
#include <filesystem>

#include "common/csv_row.hpp"
#include "common/csv_table.hpp"
#include "common/json_file.hpp"
#include "common/staged_directory.hpp"
#include "common/text_file.hpp"
#include "common/version.hpp"
#include "experiments/plan/plan_uncertainty.hpp"
#include "policies/policy_registry.hpp"
#include "profiles/profile_io.hpp"

namespace sparksim {

namespace {

// The empty cells of a plan row without an answer: replicas, gpus, each SLO metric, then
// requests_total, requests_completed, throughput_tok_s and throughput_tok_s_per_gpu.
void empty_answer_cells(CsvRow& row, std::size_t terms) {
  row.text("").text("");
  for (std::size_t i = 0; i < terms; ++i) row.text("");
  row.text("").text("").text("").text("");
}

void plan_row(std::string& csv, const PlanResult& result, const PolicyPlan& plan) {
  const PlanEvaluation* e = plan.replicas ? plan.at(*plan.replicas) : nullptr;
  CsvRow r(csv);
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
    empty_answer_cells(r, result.terms.size());
  }
  r.integer(static_cast<std::int64_t>(plan.evaluations.size())).end();
}

void search_rows(std::string& csv, const PolicyPlan& plan) {
  std::vector<const PlanEvaluation*> by_count;
  for (const auto& ev : plan.evaluations) by_count.push_back(&ev);
  std::stable_sort(by_count.begin(), by_count.end(), [](const auto* a, const auto* b) {
    return a->fleet.replicas < b->fleet.replicas;
  });
  for (const PlanEvaluation* evp : by_count) {
    const PlanEvaluation& ev = *evp;
    CsvRow s(csv);
    plan_name_cells(s, plan)
        .integer(ev.fleet.replicas)
        .integer(ev.fleet.replicas * plan.engines_per_replica)
        .integer(ev.fleet.prefill_replicas)
        .integer(ev.fleet.gpus)
        .integer(ev.meets ? 1 : 0);
    const bool stopped = ev.fleet.stopped_at.has_value();
    for (double v : ev.values) stopped ? s.text("") : s.fixed(v, 6);
    s.integer(ev.fleet.requests_total).integer(ev.fleet.requests_completed);
    if (stopped) {  // measured only to the instant the miss became certain
      s.text("").text("").text("").scaled(*ev.fleet.stopped_at, 9);
    } else {
      s.integer(ev.fleet.requests_rejected_kv)
          .fixed(ev.fleet.throughput_tok_s, 6)
          .fixed(ev.fleet.throughput_tok_s_per_gpu, 6)
          .text("");
    }
    s.text(csv_cell(ev.reason)).end();
  }
}

nlohmann::ordered_json topology_search_json(const TopologyPlanOptions& t) {
  nlohmann::ordered_json topology;
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
  return topology;
}

}  // namespace

nlohmann::ordered_json plan_run_configs(const std::vector<std::vector<RunSetup>>& setups) {
  auto runs = nlohmann::ordered_json::array();
  for (const auto& per_candidate : setups) {
    for (const RunSetup& setup : per_candidate) {
      const auto policy = make_policy(setup.policy_spec, PolicyContext{setup.engine.drafter.gamma});
      runs.push_back(run_config_json(setup, policy->synchronous()));
    }
  }
  return runs;
}

std::string plan_csv(const PlanResult& result) {
  std::string csv = std::string(kPlanNameColumns) + ",profile_source,status,replicas,gpus";
  for (const auto& t : result.terms) csv += "," + t.name;
  csv +=
      ",requests_total,requests_completed,throughput_tok_s,throughput_tok_s_per_gpu,"
      "replica_counts_simulated\n";
  for (const auto& plan : result.plans) plan_row(csv, result, plan);
  return csv;
}

std::string search_csv(const PlanResult& result) {
  std::string csv = std::string(kPlanNameColumns) + ",replicas,engines,prefill_replicas,gpus,meets";
  for (const auto& t : result.terms) csv += "," + t.name;
  csv +=
      ",requests_total,requests_completed,requests_rejected_kv,throughput_tok_s,"
      "throughput_tok_s_per_gpu,stopped_at_s,reason\n";
  for (const auto& plan : result.plans) search_rows(csv, plan);
  return csv;
}

nlohmann::ordered_json plan_config_json(const PlanOptions& o, const PlanResult& result,
                                        nlohmann::ordered_json run_configs, std::int64_t requests) {
  nlohmann::ordered_json config;
  config["sparksim_version"] = sparksim_version();
  config["sparksim_git_sha"] = sparksim_git_sha();
  config["profile"] = o.run.profile_path;
  config["profile_source"] = result.profile_source;
  config["profile_label"] = result.profile_label;
  config["requests"] = requests;
  config["slo"] = nlohmann::ordered_json::array();
  for (const auto& t : result.terms) config["slo"].push_back(t.text());
  config["routers"] = result.routers;
  config["layouts"] = result.layouts;
  config["max_replicas"] = result.max_replicas;
  config["misses"] = o.finish_misses ? "simulated to the end"
                                     : "cluster-layer counts stopped once the SLO is lost for good";
  if (o.topology.active()) config["topology_search"] = topology_search_json(o.topology);
  config["policies"] = nlohmann::ordered_json::array();
  for (const auto& p : result.plans) config["policies"].push_back(p.drafter + "+" + p.policy);
  if (!o.uncertain.empty()) {
    nlohmann::ordered_json u;
    u["inputs"] = nlohmann::ordered_json::array();
    for (const auto& in : o.uncertain) {
      u["inputs"].push_back(
          {{"input", in.label()}, {"low", in.low_text()}, {"high", in.high_text()}});
    }
    u["samples"] = o.uncertainty_samples;
    u["seed"] = o.uncertainty_seed;
    u["design"] =
        "Latin hypercube, each input uniform over [low, high] (categorical: either value)";
    config["uncertainty"] = std::move(u);
  }
  config["runs"] = std::move(run_configs);
  return config;
}

void write_plan_outputs(const PlanOptions& o, const PlanResult& result,
                        nlohmann::ordered_json run_configs, std::int64_t requests) {
  std::string out_dir = std::filesystem::path(o.out_dir).lexically_normal().string();
  while (out_dir.size() > 1 && out_dir.back() == '/') out_dir.pop_back();
  StagedDirectory dir(out_dir);
  write_file_bytes(dir.file("plan.csv"), plan_csv(result));
  write_file_bytes(dir.file("search.csv"), search_csv(result));
  write_file_bytes(dir.file("config.json"),
                   format_json(plan_config_json(o, result, std::move(run_configs), requests)));
  if (!o.uncertain.empty()) {
    write_file_bytes(dir.file("uncertainty.csv"), uncertainty_csv(o, result));
    write_file_bytes(dir.file("meet_probability.csv"), meet_probability_csv(result));
  }
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
}

}  // namespace sparksim
