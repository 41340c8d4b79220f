// `sparksim plan`: per policy, the fewest replicas (and GPUs) that serve a trace within an SLO,
// found by simulating candidate replica counts behind a router.
#include <cstdio>

#include "experiments/cli/commands.hpp"
#include "experiments/cli/run_options_binding.hpp"
#include "experiments/plan/capacity_plan.hpp"

namespace sparksim::cli {

void add_plan_command(CLI::App& app) {
  auto o = std::make_shared<PlanOptions>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "plan", "capacity planning: minimum replicas per policy that serve a trace within an SLO");
  RunOptions& r = o->run;
  add_workload_options(*cmd, r, ClosedLoop::kNotOffered);
  add_profile_option(*cmd, r, "profile JSON of one replica");
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
  cmd->add_option("--jobs", o->jobs, "worker threads (default: every hardware thread)");
  cmd->add_option("--out", o->out_dir, "output directory");
  cmd->add_flag("--quiet", *quiet, "print nothing on success");
  cmd->callback([cmd, o, quiet] {
    if (print_requested_help(o->run)) return;
    apply_engine_preset(*cmd, o->run);
    const PlanResult result = run_plan(*o);
    if (*quiet) return;
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
    for (const auto& plan : result.plans) {
      std::printf("%s\n", plan_answer(result, plan).c_str());
    }
    std::printf("wrote     %s/{plan.csv,search.csv,config.json}\n", o->out_dir.c_str());
  });
}

}  // namespace sparksim::cli
