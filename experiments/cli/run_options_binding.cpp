// One declaration of the options every simulating subcommand shares (see the header).
#include "experiments/cli/run_options_binding.hpp"

#include <iostream>

#include "policies/policy_registry.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/engine_preset.hpp"

namespace sparksim::cli {

void add_workload_options(CLI::App& cmd, RunOptions& run, ClosedLoop closed_loop) {
  cmd.add_option("--trace", run.trace_path,
                 "request trace (Azure CSV, Mooncake JSONL, native CSV)");
  cmd.add_option("--trace-format", run.trace_format, "azure | mooncake | csv (default: detect)");
  cmd.add_option("--domain", run.domain, "override the trace's domain: math | code | chat");
  cmd.add_flag("--spread-buckets", run.spread_buckets,
               "Mooncake: spread each 3 s timestamp bucket's arrivals uniformly (default off)");
  cmd.add_option("--synthetic", run.synthetic,
                 "synthetic traffic, e.g. rate=5,cv=1.0,prompt=lognormal:1000:1.0,"
                 "output=lognormal:200:0.8,domain=chat,duration_s=600");
  if (closed_loop == ClosedLoop::kAllowed) {
    cmd.add_option("--closed-loop-users", run.closed_loop_users,
                   "keep N requests in flight (lengths and duration_s from --synthetic)");
    cmd.add_option("--think-time-s", run.think_time_s, "closed loop: mean exponential think time");
  }
  cmd.add_option("--rate-scale", run.rate_scale, "divide inter-arrival times by X")
      ->capture_default_str();
  cmd.add_option("--prompt-length-scale", run.prompt_length_scale,
                 "multiply every request's prompt tokens by X (rounded, at least 1)")
      ->capture_default_str();
  cmd.add_option("--output-length-scale", run.output_length_scale,
                 "multiply every request's output tokens by X (rounded, at least 1)")
      ->capture_default_str();
  cmd.add_option("--arrival-cv", run.arrival_cv,
                 "re-draw inter-arrival gaps as a gamma renewal process with this cv at the "
                 "workload's mean rate (0 = its own arrivals)")
      ->capture_default_str();
  cmd.add_option("--max-requests", run.max_requests, "keep only the first N trace rows");
}

void add_profile_option(CLI::App& cmd, RunOptions& run, const std::string& description) {
  cmd.add_option("--profile", run.profile_path, description);
}

void add_system_options(CLI::App& cmd, RunOptions& run) {
  cmd.add_option("--drafter", run.drafter,
                 "none | mtp1 | eagle3-G | dflash-G | dspark-G (none: no speculation)")
      ->capture_default_str();
  cmd.add_option("--policy", run.policy, "verification policy spec ('--policy help' lists them)")
      ->capture_default_str();
}

void add_acceptance_options(CLI::App& cmd, RunOptions& run) {
  cmd.add_option("--acceptance", run.acceptance, "acceptance model spec ('help' lists them)")
      ->capture_default_str();
  cmd.add_option("--acceptance-log", run.acceptance_log,
                 "replay an acceptance log (ours, or Spec-Bench JSONL) per request and step");
  cmd.add_option("--seed", run.seed, "random seed")->capture_default_str();
}

void add_engine_options(CLI::App& cmd, RunOptions& run) {
  cmd.add_option("--engine", run.engine,
                 "engine preset, engine@version: " + engine_preset_names() +
                     " (max sequences, token budget, chunked prefill, KV memory share)");
  cmd.add_option("--max-running", run.max_running,
                 "max concurrent requests holding KV (per replica)")
      ->capture_default_str();
  cmd.add_option("--max-batch-tokens", run.max_batch_tokens, "per-step token budget (per replica)")
      ->capture_default_str();
  cmd.add_option("--prefill", run.prefill, "chunked | separate (inside each replica)")
      ->capture_default_str();
  cmd.add_option("--sps", run.sps,
                 "the scheduler's SPS belief: capture (as deployed engines profile it) | live "
                 "(the time model at each step's requests) | reference (docs/sps-beliefs.md)")
      ->capture_default_str();
  cmd.add_option("--kv-capacity-tokens", run.kv_capacity_tokens,
                 "override the profile's KV capacity per replica (0 = from the profile)");
  cmd.add_option_function<double>(
      "--host-overhead-us", [&run](double us) { run.host_overhead_us = us; },
      "host scheduling overhead per step paid by synchronous policies (default: the profile's)");
}

void apply_engine_preset(const CLI::App& cmd, RunOptions& run) {
  if (run.engine.empty()) return;
  // An unknown name is reported with the run's other input problems.
  const EnginePreset* p = lookup_engine_preset(run.engine);
  if (p == nullptr) return;
  if (cmd.count("--max-running") == 0) run.max_running = p->max_running;
  if (cmd.count("--max-batch-tokens") == 0) run.max_batch_tokens = p->max_batch_tokens;
  if (cmd.count("--prefill") == 0) {
    run.prefill = p->prefill == PrefillMode::kChunked ? "chunked" : "separate";
  }
}

bool print_requested_help(const RunOptions& run) {
  if (run.policy == "help") {
    std::cout << describe_policies();
    return true;
  }
  if (run.acceptance == "help") {
    std::cout << describe_acceptance_models();
    return true;
  }
  return false;
}

}  // namespace sparksim::cli
