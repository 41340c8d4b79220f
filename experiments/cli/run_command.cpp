// `sparksim run`: one simulation of a workload on one replica; writes DIR/summary.json,
// requests.csv, timeseries.csv, config.json and prints the headline numbers.
#include <cstdio>
#include <iostream>

#include "experiments/cli/commands.hpp"
#include "experiments/run_experiment.hpp"
#include "policies/policy_registry.hpp"
#include "sim/acceptance/acceptance_registry.hpp"

namespace sparksim::cli {

namespace {

void print_summary(const nlohmann::ordered_json& s) {
  const auto num = [&](const char* key) { return s.at(key).get<double>(); };
  const auto p50 = [&](const char* key) { return s.at(key).at("p50").get<double>(); };
  std::printf("profile           %s\n", s.at("profile_label").get<std::string>().c_str());
  std::printf("drafter / policy  %s / %s\n", s.at("drafter").get<std::string>().c_str(),
              s.at("policy").get<std::string>().c_str());
  std::printf("requests          %lld completed of %lld (%lld never fit in KV)\n",
              static_cast<long long>(num("requests_completed")),
              static_cast<long long>(num("requests_total")),
              static_cast<long long>(num("requests_rejected_kv")));
  std::printf("simulated         %.1f s, %lld steps, %lld request-steps\n", num("sim_duration_s"),
              static_cast<long long>(num("steps")), static_cast<long long>(num("request_steps")));
  std::printf("throughput        %.1f tok/s (%.1f tok/s/GPU), %.2f req/s\n",
              num("throughput_tok_s"), num("throughput_tok_s_per_gpu"),
              num("request_throughput_req_s"));
  std::printf("per user (p50)    %.1f tok/s, TPOT %.2f ms, TTFT %.1f ms, E2E %.2f s\n",
              p50("tok_s_per_user"), p50("tpot_ms"), p50("ttft_ms"), p50("e2e_s"));
  std::printf(
      "speculation       tau %.3f, verify budget %.3f tok/req-step, %.1f%% drafts rejected\n",
      num("tau_mean"), num("verify_tokens_per_request_step_mean"),
      100.0 * num("rejected_draft_frac"));
  std::printf("preemptions       %lld (KV peak %lld of %lld tokens)\n",
              static_cast<long long>(num("preemptions")),
              static_cast<long long>(num("kv_peak_reserved_tokens")),
              static_cast<long long>(num("kv_capacity_tokens")));
  std::printf("wall              %.3f s (%.2f M request-steps/s, %.0fx simulated time)\n",
              num("sim_wall_s"), num("request_steps_per_wall_s") / 1e6,
              num("speedup_vs_simulated_time"));
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand("run", "simulate one workload on one serving replica");
  RunOptions& o = *options;
  run->add_option("--trace", o.trace_path, "request trace (Azure CSV, Mooncake JSONL, native CSV)");
  run->add_option("--trace-format", o.trace_format, "azure | mooncake | csv (default: detect)");
  run->add_option("--domain", o.domain, "override the trace's domain: math | code | chat");
  run->add_flag("--spread-buckets", o.spread_buckets,
                "Mooncake: spread each 3 s timestamp bucket's arrivals uniformly (default off)");
  run->add_option("--synthetic", o.synthetic,
                  "synthetic traffic, e.g. rate=5,cv=1.0,prompt=lognormal:1000:1.0,"
                  "output=lognormal:200:0.8,domain=chat,duration_s=600");
  run->add_option("--closed-loop-users", o.closed_loop_users,
                  "keep N requests in flight (lengths and duration_s from --synthetic)");
  run->add_option("--think-time-s", o.think_time_s, "closed loop: mean exponential think time");
  run->add_option("--rate-scale", o.rate_scale, "divide inter-arrival times by X");
  run->add_option("--max-requests", o.max_requests, "keep only the first N trace rows");
  run->add_option("--profile", o.profile_path,
                  "profile JSON (profiles/analytic/h100/qwen3-8b.json)");
  run->add_option("--drafter", o.drafter, "mtp1 | eagle3-G | dflash-G | dspark-G")
      ->capture_default_str();
  run->add_option("--policy", o.policy, "verification policy spec ('--policy help' lists them)")
      ->capture_default_str();
  run->add_option("--acceptance", o.acceptance, "acceptance model spec ('help' lists them)")
      ->capture_default_str();
  run->add_option("--acceptance-log", o.acceptance_log,
                  "replay an acceptance log (ours, or Spec-Bench JSONL) per request and step");
  run->add_option("--write-acceptance-log", o.write_acceptance_log,
                  "record every request-step's confidences and outcome (CSV) to this file");
  run->add_flag("--write-steps", o.write_steps,
                "also write DIR/steps.csv: every step's batch (decode widths and contexts, prefill "
                "chunks), the sequence sparksim_calibrate_kernels replays");
  run->add_option("--seed", o.seed, "random seed")->capture_default_str();
  run->add_option("--max-running", o.max_running, "max concurrent requests holding KV")
      ->capture_default_str();
  run->add_option("--max-batch-tokens", o.max_batch_tokens, "per-step token budget")
      ->capture_default_str();
  run->add_option("--prefill", o.prefill, "chunked | separate")->capture_default_str();
  run->add_option("--kv-capacity-tokens", o.kv_capacity_tokens,
                  "override the profile's KV capacity (0 = from the profile)");
  run->add_option_function<double>(
      "--host-overhead-us", [&o](double us) { o.host_overhead_us = us; },
      "host scheduling overhead per step paid by synchronous policies (default: the profile's)");
  run->add_option("--out", o.out_dir, "output directory");
  auto quiet = std::make_shared<bool>(false);
  run->add_flag("--quiet", *quiet, "print nothing on success");
  run->callback([options, quiet] {
    if (options->policy == "help") {
      std::cout << describe_policies();
      return;
    }
    if (options->acceptance == "help") {
      std::cout << describe_acceptance_models();
      return;
    }
    const auto summary = run_to_directory(*options);
    if (!*quiet) {
      print_summary(summary);
      std::printf("wrote             %s/{summary.json,requests.csv,timeseries.csv,config.json}\n",
                  options->out_dir.c_str());
    }
  });
}

void add_policies_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("policies", "list the verification policies");
  cmd->callback([] { std::cout << describe_policies(); });
}

}  // namespace sparksim::cli
