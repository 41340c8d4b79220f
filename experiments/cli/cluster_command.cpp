// `sparksim cluster`: one workload on a cluster of replicas (SimGrid hosts and links, a router,
// optionally a prefill pool handing KV to a decode pool); writes DIR/summary.json (the whole
// cluster as `sparksim run` reports one replica, plus per-replica and per-link sections),
// requests.csv, timeseries.csv, transfers.csv, placement.csv, config.json.
// SimGrid's engine is created inside the command's callback, with arguments of its own (SimGrid
// options come through --simgrid-cfg), so no other command pays for it.
#include <cstdio>
#include <iostream>

#include "common/input_error.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/cli/run_options_binding.hpp"
#include "experiments/cli/summary_lines.hpp"
#include "experiments/plan/planned_fleet.hpp"
#include "experiments/run/cluster_experiment.hpp"
#include "sim/cluster/router.hpp"

namespace sparksim::cli {

namespace {

void print_summary(const nlohmann::ordered_json& s) {
  const auto num = [&](const char* key) { return s.at(key).get<double>(); };
  const auto& c = s.at("cluster");
  std::printf("profile           %s\n", s.at("profile_label").get<std::string>().c_str());
  std::printf("cluster           %s\n", c.at("topology").get<std::string>().c_str());
  std::printf("router            %s, %lld prefill + %lld decode replicas\n",
              c.at("router").get<std::string>().c_str(),
              static_cast<long long>(c.at("prefill_replicas").get<double>()),
              static_cast<long long>(c.at("decode_replicas").get<double>()));
  std::printf("drafter / policy  %s / %s\n", s.at("drafter").get<std::string>().c_str(),
              s.at("policy").get<std::string>().c_str());
  print_sps_belief_line(s);
  print_requests_line(s);
  print_simulated_line(s);
  std::printf("throughput        %.1f tok/s (%.1f tok/s/GPU on %lld GPUs), %.2f req/s\n",
              num("throughput_tok_s"), num("throughput_tok_s_per_gpu"),
              static_cast<long long>(num("gpus")), num("request_throughput_req_s"));
  print_per_user_line(s);
  if (c.at("kv_transfers").get<double>() > 0) {
    std::printf("KV transfers      %lld, %.3f GB, p50 %.3f ms, p99 %.3f ms\n",
                static_cast<long long>(c.at("kv_transfers").get<double>()),
                c.at("kv_transfer_bytes").get<double>() / 1e9,
                c.at("kv_transfer_ms").at("p50").get<double>(),
                c.at("kv_transfer_ms").at("p99").get<double>());
  }
  print_wall_line(s);
}

// The cluster's shape: replicas, platform, router, prefill pool and the built-in topology.
void add_topology_options(CLI::App& cmd, ClusterOptions& c) {
  cmd.add_option("--replicas", c.replicas,
                 "replicas (built-in topology; with --platform: the first N non-router hosts)");
  cmd.add_option("--platform", c.platform_path,
                 "SimGrid platform file (XML) instead of the built-in topology");
  cmd.add_option("--router-host", c.router_host,
                 "--platform: the router's host; every other host is a replica")
      ->capture_default_str();
  cmd.add_option("--router", c.router, "round-robin | least-loaded | kv-aware ('help' lists them)")
      ->capture_default_str();
  cmd.add_option("--prefill-replicas", c.prefill_replicas,
                 "disaggregate: the first P replicas prefill, the others decode (0 = colocated)")
      ->capture_default_str();
  cmd.add_option("--gpus-per-node", c.gpus_per_node, "built-in topology: GPUs per node (8)");
  cmd.add_option("--nvlink-bandwidth-gb-s", c.nvlink_bandwidth_gb_s,
                 "built-in: intra-node bandwidth per GPU and direction, GB/s (450)");
  cmd.add_option("--nvlink-latency-us", c.nvlink_latency_us,
                 "built-in: intra-node transfer latency, us (1)");
  cmd.add_option("--network-bandwidth-gb-s", c.network_bandwidth_gb_s,
                 "built-in: inter-node bandwidth per GPU and direction, GB/s (50)");
  cmd.add_option("--network-latency-us", c.network_latency_us,
                 "built-in: inter-node transfer latency, us (5)");
  cmd.add_option("--simgrid-cfg", c.simgrid_config,
                 "extra SimGrid option key:value (repeatable; may break the transfer formula)");
}

// --plan DIR: serve the fleet a topology plan chose (profile, replicas, prefill pool, router,
// drafter and policy).
void serve_planned_fleet(const CLI::App& cmd, ClusterOptions& options, const std::string& plan_dir,
                         const std::string& plan_policy, bool quiet) {
  // The plan decides these; a flag beside it would silently lose or win, so neither may.
  std::string clashes;
  for (const char* flag : {"--profile", "--replicas", "--prefill-replicas", "--router", "--drafter",
                           "--policy", "--platform"}) {
    if (cmd.count(flag) > 0) clashes += std::string(clashes.empty() ? "" : ", ") + flag;
  }
  if (!clashes.empty()) {
    throw InputError("--plan: " + clashes + " come(s) from the plan; drop them");
  }
  const PlannedFleet fleet = read_planned_fleet(plan_dir, plan_policy);
  apply_planned_fleet(fleet, options);
  if (!quiet) {
    std::printf("plan              %s x %lld (%lld GPUs, %lld engines, %lld prefill) from %s\n",
                fleet.topology.c_str(), static_cast<long long>(fleet.replicas),
                static_cast<long long>(fleet.gpus), static_cast<long long>(fleet.engines),
                static_cast<long long>(fleet.prefill_engines), plan_dir.c_str());
  }
}

}  // namespace

void add_cluster_command(CLI::App& app) {
  auto options = std::make_shared<ClusterOptions>();
  CLI::App* cmd = app.add_subcommand(
      "cluster", "simulate one workload on a cluster of replicas behind a router (SimGrid)");
  ClusterOptions& c = *options;
  RunOptions& o = c.run;
  add_topology_options(*cmd, c);
  auto plan_dir = std::make_shared<std::string>();
  auto plan_policy = std::make_shared<std::string>();
  cmd->add_option("--plan", *plan_dir,
                  "serve the fleet a topology plan chose (`sparksim plan --topologies ...`'s "
                  "--out DIR): its profile, replicas, prefill pool, router, drafter and policy");
  cmd->add_option("--plan-policy", *plan_policy,
                  "--plan: which planned policy (DRAFTER+POLICY) when it planned several");
  add_workload_options(*cmd, o, ClosedLoop::kAllowed);
  add_profile_option(*cmd, o, "profile JSON (every replica runs it)");
  add_system_options(*cmd, o);
  add_acceptance_options(*cmd, o);
  add_engine_options(*cmd, o);
  c.threads = 0;
  cmd->add_option("--threads", c.threads,
                  "threads for the replicas' steps (0 = two, or one on a one-CPU machine; "
                  "outputs do not depend on it)")
      ->capture_default_str();
  cmd->add_option("--out", o.out_dir, "output directory");
  auto quiet = std::make_shared<bool>(false);
  cmd->add_flag("--quiet", *quiet, "print nothing on success");
  cmd->callback([cmd, options, quiet, plan_dir, plan_policy] {
    if (options->router == "help") {
      std::cout << describe_routers();
      return;
    }
    if (print_requested_help(options->run)) return;
    apply_engine_preset(*cmd, options->run);
    if (!plan_dir->empty()) {
      serve_planned_fleet(*cmd, *options, *plan_dir, *plan_policy, *quiet);
    } else if (!plan_policy->empty()) {
      throw InputError("--plan-policy: only with --plan DIR");
    }
    const auto summary = cluster_to_directory(*options);
    if (!*quiet) {
      print_summary(summary);
      std::printf(
          "wrote             %s/{summary.json,requests.csv,timeseries.csv,transfers.csv,"
          "placement.csv,config.json}\n",
          options->run.out_dir.c_str());
    }
  });
}

}  // namespace sparksim::cli
