// `sparksim plan`: per policy, the fewest replicas (and GPUs) that serve a trace within an SLO,
// found by simulating candidate replica counts behind a router.
#include <algorithm>
#include <cstdio>

#include "experiments/cli/commands.hpp"
#include "experiments/cli/provenance_options.hpp"
#include "experiments/cli/run_options_binding.hpp"
#include "experiments/plan/capacity_plan.hpp"
#include "experiments/plan/plan_uncertainty.hpp"

namespace sparksim::cli {

namespace {

// --topologies and its companions: the DeepSeek-V4 replica-topology search.
void add_topology_options(CLI::App& cmd, TopologyPlanOptions& t) {
  cmd.add_option("--topologies", t.topologies,
                 "DeepSeek-V4: compare these replica topologies (dep<N> / tp<N>), each composed "
                 "from the MoE step model for --target on --gpu; the fewest GPUs wins");
  cmd.add_option("--topology-profile", t.topology_profiles,
                 "compare this topology on a given profile: dep<N>=PATH (one-GPU profile) or "
                 "tp<N>=PATH (whole replica); repeatable");
  cmd.add_option("--target", t.target, "--topologies: deepseek-v4-flash or deepseek-v4-pro");
  cmd.add_option("--gpu", t.gpu, "--topologies: h100-sxm or h200-sxm (h100, h200 accepted)");
  cmd.add_option("--expert-format", t.expert_format, "--topologies: fp4 or fp8 routed experts")
      ->capture_default_str();
  cmd.add_option("--gpus-per-node", t.gpus_per_node,
                 "--topologies: GPUs per node (EP beyond it crosses nodes)")
      ->capture_default_str();
  cmd.add_option("--expert-imbalance", t.expert_imbalance,
                 "--topologies: hottest expert-parallel rank's routed load / mean")
      ->capture_default_str();
  cmd.add_flag("--two-batch-overlap", t.two_batch_overlap, "--topologies: two-batch overlap");
  cmd.add_option("--planned-requests", t.planned_requests,
                 "--topologies: requests per attention rank whose sliding-window KV is reserved")
      ->capture_default_str();
  cmd.add_option("--max-gpus", t.max_gpus,
                 "topology search: per topology, no more replicas than this many GPUs hold")
      ->capture_default_str();
}

// What stdout shows: the profile, the SLO and fleets, one answer per plan (and per topology
// group, the choice), and the files written.
void print_plan(const PlanOptions& options, const PlanResult& result) {
  std::printf("profile   %s\n", result.profile_label.c_str());
  std::string slo;
  for (const auto& t : result.terms) slo += (slo.empty() ? "" : ", ") + t.text();
  const auto join = [](const std::vector<std::string>& names) {
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
    return all;
  };
  std::printf("slo       %s; router %s; layout %s; up to %lld replicas\n", slo.c_str(),
              join(result.routers).c_str(), join(result.layouts).c_str(),
              static_cast<long long>(result.max_replicas));
  if (const std::string note = scenario_note(options, result); !note.empty()) {
    std::printf("%s\n", note.c_str());
  }
  const std::size_t per_group = std::max<std::size_t>(1, result.topologies.size());
  for (std::size_t i = 0; i < result.plans.size(); ++i) {
    std::printf("%s\n", plan_answer(result, result.plans[i]).c_str());
    if (!result.uncertainty.empty()) std::printf("%s\n", uncertainty_answer(result, i).c_str());
    if (const std::string by = scenario_answer(options, result, i); !by.empty()) {
      std::printf("%s\n", by.c_str());
    }
    if (!result.topologies.empty() && (i + 1) % per_group == 0) {
      std::printf("%s\n", topology_answer(result, i / per_group).c_str());
    }
  }
  std::printf("wrote     %s/{plan.csv,search.csv,config.json%s%s}\n", options.out_dir.c_str(),
              result.uncertainty.empty() ? "" : ",uncertainty.csv,meet_probability.csv",
              result.topologies.empty() ? "" : ",topology.csv,profiles/");
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto o = std::make_shared<PlanOptions>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "plan", "plan capacity: the fewest replicas per policy that serve a trace within an SLO");
  RunOptions& r = o->run;
  add_workload_options(*cmd, r, ClosedLoop::kNotOffered);
  add_profile_option(*cmd, r, "profile JSON of one replica (or --topologies / --topology-profile)");
  cmd->add_option("--slo", o->slo,
                  "comma-separated bounds, e.g. \"ttft_p99_ms<=2000,tok_s_per_user_p50>=80\"");
  cmd->add_option("--policies", o->policies,
                  "systems to plan for: DRAFTER+POLICY (or POLICY with --drafter), e.g. "
                  "mtp1+static:k=1 dspark-7+async-topk");
  cmd->add_option("--drafter", o->default_drafter, "drafter for --policies entries without one")
      ->capture_default_str();
  add_acceptance_options(*cmd, r);
  add_engine_options(*cmd, r);
  cmd->add_option("--router", o->routers,
                  "routers to compare: round-robin | least-loaded | kv-aware (one or more)")
      ->capture_default_str();
  cmd->add_option("--prefill-share", o->prefill_shares,
                  "layouts to compare: 0 = colocated, S in (0, 1) = that share of the replicas "
                  "prefill and hand KV to the rest (one or more)")
      ->capture_default_str();
  cmd->add_option("--max-replicas", o->max_replicas, "search no further than this")
      ->capture_default_str();
  cmd->add_flag("--finish-misses", o->finish_misses,
                "simulate every count to the end, even once its SLO is lost for good (search.csv "
                "then has each miss's measured values; slower with any router but round-robin)");
  add_topology_options(*cmd, o->topology);
  add_provenance_options(*cmd, o->topology.date, o->topology.git_sha);
  auto uncertain = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--uncertain", *uncertain,
                  "inputs known only within a range: NAME=LOW:HIGH or NAME=A|B (the inputs of "
                  "sparksim sensitivity, e.g. acceptance_shift=-0.5:0.5 verify_cost_x=0.9:1.1)");
  cmd->add_option("--uncertainty-samples", o->uncertainty_samples,
                  "--uncertain: Latin-hypercube samples, a full search each")
      ->capture_default_str();
  cmd->add_option("--uncertainty-seed", o->uncertainty_seed, "--uncertain: the design's seed")
      ->capture_default_str();
  cmd->add_option("--jobs", o->jobs, "worker threads (default: every CPU it may use)");
  cmd->add_option("--out", o->out_dir, "output directory");
  cmd->add_flag("--quiet", *quiet, "print nothing on success");
  cmd->callback([cmd, o, quiet, uncertain] {
    if (print_requested_help(o->run)) return;
    for (const auto& text : *uncertain) o->uncertain.push_back(parse_uncertain_input(text));
    apply_engine_preset(*cmd, o->run);
    o->topology.date = date_or_today(o->topology.date);
    const PlanResult result = run_plan(*o);
    if (*quiet) return;
    print_plan(*o, result);
  });
}

}  // namespace sparksim::cli
