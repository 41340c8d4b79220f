// `sparksim run`: one simulation of a workload on one replica; writes DIR/summary.json,
// requests.csv, timeseries.csv, config.json and prints the headline numbers.
#include <cstdio>

#include "experiments/cli/commands.hpp"
#include "experiments/cli/run_options_binding.hpp"
#include "experiments/cli/summary_lines.hpp"
#include "experiments/run/run_experiment.hpp"

namespace sparksim::cli {

namespace {

void print_summary(const nlohmann::ordered_json& s) {
  const auto num = [&](const char* key) { return s.at(key).get<double>(); };
  std::printf("profile           %s\n", s.at("profile_label").get<std::string>().c_str());
  std::printf("drafter / policy  %s / %s\n", s.at("drafter").get<std::string>().c_str(),
              s.at("policy").get<std::string>().c_str());
  print_sps_belief_line(s);
  print_requests_line(s);
  print_simulated_line(s);
  std::printf("throughput        %.1f tok/s (%.1f tok/s/GPU), %.2f req/s\n",
              num("throughput_tok_s"), num("throughput_tok_s_per_gpu"),
              num("request_throughput_req_s"));
  print_per_user_line(s);
  std::printf(
      "speculation       tau %.3f, verify budget %.3f tok/req-step, %.1f%% drafts rejected\n",
      num("tau_mean"), num("verify_tokens_per_request_step_mean"),
      100.0 * num("rejected_draft_frac"));
  std::printf("preemptions       %lld (KV peak %lld of %lld tokens)\n",
              static_cast<long long>(num("preemptions")),
              static_cast<long long>(num("kv_peak_reserved_tokens")),
              static_cast<long long>(num("kv_capacity_tokens")));
  print_wall_line(s);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand("run", "simulate one workload on one serving replica");
  RunOptions& o = *options;
  add_workload_options(*run, o, ClosedLoop::kAllowed);
  run->add_option("--closed-loop-requests", o.closed_loop_requests,
                  "closed loop: the users together send N requests, then stop (a benchmark "
                  "client's --num-prompts at fixed concurrency; 0 = until duration_s)");
  add_profile_option(*run, o, "profile JSON (profiles/analytic/h100-sxm/qwen3-8b.json)");
  add_system_options(*run, o);
  add_acceptance_options(*run, o);
  run->add_option("--write-acceptance-log", o.write_acceptance_log,
                  "record every request-step's confidences and outcome (CSV) to this file");
  run->add_flag("--write-steps", o.write_steps,
                "also write DIR/steps.csv: every step's batch (decode widths and contexts, prefill "
                "chunks), the sequence sparksim_calibrate_kernels replays");
  add_engine_options(*run, o);
  run->add_option("--out", o.out_dir, "output directory");
  auto quiet = std::make_shared<bool>(false);
  run->add_flag("--quiet", *quiet, "print nothing on success");
  run->callback([run, options, quiet] {
    if (print_requested_help(*options)) return;
    apply_engine_preset(*run, *options);
    const auto summary = run_to_directory(*options);
    if (!*quiet) {
      print_summary(summary);
      std::printf("wrote             %s/{summary.json,requests.csv,timeseries.csv,config.json}\n",
                  options->out_dir.c_str());
    }
  });
}

}  // namespace sparksim::cli
