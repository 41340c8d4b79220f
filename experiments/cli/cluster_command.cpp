// `sparksim cluster`: one workload on a cluster of replicas (SimGrid hosts and links, a router,
// optionally a prefill pool handing KV to a decode pool); writes DIR/summary.json (the whole
// cluster as `sparksim run` reports one replica, plus per-replica and per-link sections),
// requests.csv, timeseries.csv, transfers.csv, placement.csv, config.json.
// SimGrid's engine is created inside the command's callback, with arguments of its own (SimGrid
// options come through --simgrid-cfg), so no other command pays for it.
#include <cstdio>
#include <iostream>

#include "experiments/cli/commands.hpp"
#include "experiments/cli/engine_options.hpp"
#include "experiments/cluster_experiment.hpp"
#include "policies/policy_registry.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/cluster/router.hpp"

namespace sparksim::cli {

namespace {

void print_summary(const nlohmann::ordered_json& s) {
  const auto num = [&](const char* key) { return s.at(key).get<double>(); };
  const auto p50 = [&](const char* key) { return s.at(key).at("p50").get<double>(); };
  const auto& c = s.at("cluster");
  std::printf("profile           %s\n", s.at("profile_label").get<std::string>().c_str());
  std::printf("cluster           %s\n", c.at("topology").get<std::string>().c_str());
  std::printf("router            %s, %lld prefill + %lld decode replicas\n",
              c.at("router").get<std::string>().c_str(),
              static_cast<long long>(c.at("prefill_replicas").get<double>()),
              static_cast<long long>(c.at("decode_replicas").get<double>()));
  std::printf("drafter / policy  %s / %s\n", s.at("drafter").get<std::string>().c_str(),
              s.at("policy").get<std::string>().c_str());
  std::printf("requests          %lld completed of %lld (%lld never fit in KV)\n",
              static_cast<long long>(num("requests_completed")),
              static_cast<long long>(num("requests_total")),
              static_cast<long long>(num("requests_rejected_kv")));
  std::printf("simulated         %.1f s, %lld steps, %lld request-steps\n", num("sim_duration_s"),
              static_cast<long long>(num("steps")), static_cast<long long>(num("request_steps")));
  std::printf("throughput        %.1f tok/s (%.1f tok/s/GPU on %lld GPUs), %.2f req/s\n",
              num("throughput_tok_s"), num("throughput_tok_s_per_gpu"),
              static_cast<long long>(num("gpus")), num("request_throughput_req_s"));
  std::printf("per user (p50)    %.1f tok/s, TPOT %.2f ms, TTFT %.1f ms, E2E %.2f s\n",
              p50("tok_s_per_user"), p50("tpot_ms"), p50("ttft_ms"), p50("e2e_s"));
  if (c.at("kv_transfers").get<double>() > 0) {
    std::printf("KV transfers      %lld, %.3f GB, p50 %.3f ms, p99 %.3f ms\n",
                static_cast<long long>(c.at("kv_transfers").get<double>()),
                c.at("kv_transfer_bytes").get<double>() / 1e9,
                c.at("kv_transfer_ms").at("p50").get<double>(),
                c.at("kv_transfer_ms").at("p99").get<double>());
  }
  std::printf("wall              %.3f s (%.2f M request-steps/s, %.0fx simulated time)\n",
              num("sim_wall_s"), num("request_steps_per_wall_s") / 1e6,
              num("speedup_vs_simulated_time"));
}

}  // namespace

void add_cluster_command(CLI::App& app) {
  auto options = std::make_shared<ClusterOptions>();
  CLI::App* cmd = app.add_subcommand(
      "cluster", "simulate one workload on a cluster of replicas behind a router (SimGrid)");
  ClusterOptions& c = *options;
  RunOptions& o = c.run;
  cmd->add_option("--replicas", c.replicas,
                  "replicas (built-in topology; with --platform: the first N non-router hosts)");
  cmd->add_option("--platform", c.platform_path,
                  "SimGrid platform file (XML) instead of the built-in topology");
  cmd->add_option("--router-host", c.router_host,
                  "--platform: the router's host; every other host is a replica")
      ->capture_default_str();
  cmd->add_option("--router", c.router, "round-robin | least-loaded | kv-aware ('help' lists them)")
      ->capture_default_str();
  cmd->add_option("--prefill-replicas", c.prefill_replicas,
                  "disaggregate: the first P replicas prefill, the others decode (0 = colocated)")
      ->capture_default_str();
  cmd->add_option("--gpus-per-node", c.gpus_per_node, "built-in topology: GPUs per node (8)");
  cmd->add_option("--nvlink-bandwidth-gb-s", c.nvlink_bandwidth_gb_s,
                  "built-in: intra-node bandwidth per GPU and direction, GB/s (450)");
  cmd->add_option("--nvlink-latency-us", c.nvlink_latency_us,
                  "built-in: intra-node transfer latency, us (1)");
  cmd->add_option("--network-bandwidth-gb-s", c.network_bandwidth_gb_s,
                  "built-in: inter-node bandwidth per GPU and direction, GB/s (50)");
  cmd->add_option("--network-latency-us", c.network_latency_us,
                  "built-in: inter-node transfer latency, us (5)");
  cmd->add_option("--simgrid-cfg", c.simgrid_config,
                  "extra SimGrid option key:value (repeatable; may break the transfer formula)");

  cmd->add_option("--trace", o.trace_path, "request trace (Azure CSV, Mooncake JSONL, native CSV)");
  cmd->add_option("--trace-format", o.trace_format, "azure | mooncake | csv (default: detect)");
  cmd->add_option("--domain", o.domain, "override the trace's domain: math | code | chat");
  cmd->add_flag("--spread-buckets", o.spread_buckets,
                "Mooncake: spread each 3 s timestamp bucket's arrivals uniformly (default off)");
  cmd->add_option("--synthetic", o.synthetic, "synthetic traffic (see `sparksim run --help`)");
  cmd->add_option("--closed-loop-users", o.closed_loop_users,
                  "keep N requests in flight (lengths and duration_s from --synthetic)");
  cmd->add_option("--think-time-s", o.think_time_s, "closed loop: mean exponential think time");
  cmd->add_option("--rate-scale", o.rate_scale, "divide inter-arrival times by X");
  cmd->add_option("--max-requests", o.max_requests, "keep only the first N trace rows");
  cmd->add_option("--profile", o.profile_path, "profile JSON (every replica runs it)");
  cmd->add_option("--drafter", o.drafter,
                  "none | mtp1 | eagle3-G | dflash-G | dspark-G (none: no speculation)")
      ->capture_default_str();
  cmd->add_option("--policy", o.policy, "verification policy spec ('--policy help' lists them)")
      ->capture_default_str();
  cmd->add_option("--acceptance", o.acceptance, "acceptance model spec ('help' lists them)")
      ->capture_default_str();
  cmd->add_option("--acceptance-log", o.acceptance_log,
                  "replay an acceptance log (ours, or Spec-Bench JSONL) per request and step");
  cmd->add_option("--seed", o.seed, "random seed")->capture_default_str();
  add_engine_option(*cmd, o);
  cmd->add_option("--max-running", o.max_running, "per replica: max concurrent requests in KV")
      ->capture_default_str();
  cmd->add_option("--max-batch-tokens", o.max_batch_tokens, "per replica: per-step token budget")
      ->capture_default_str();
  cmd->add_option("--prefill", o.prefill, "chunked | separate (inside each replica)")
      ->capture_default_str();
  cmd->add_option("--kv-capacity-tokens", o.kv_capacity_tokens,
                  "per replica: override the profile's KV capacity (0 = from the profile)");
  cmd->add_option_function<double>(
      "--host-overhead-us", [&o](double us) { o.host_overhead_us = us; },
      "host scheduling overhead per step paid by synchronous policies (default: the profile's)");
  cmd->add_option("--out", o.out_dir, "output directory");
  auto quiet = std::make_shared<bool>(false);
  cmd->add_flag("--quiet", *quiet, "print nothing on success");
  cmd->callback([cmd, options, quiet] {
    if (options->router == "help") {
      std::cout << describe_routers();
      return;
    }
    if (options->run.policy == "help") {
      std::cout << describe_policies();
      return;
    }
    if (options->run.acceptance == "help") {
      std::cout << describe_acceptance_models();
      return;
    }
    apply_engine_preset(*cmd, options->run);
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
