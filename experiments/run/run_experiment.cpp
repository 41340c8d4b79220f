// Validation, execution and output of one simulation run.
#include "experiments/run/run_experiment.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <unistd.h>

#include "common/csv_row.hpp"
#include "common/input_error.hpp"
#include "common/staged_directory.hpp"
#include "common/text_file.hpp"
#include "common/version.hpp"
#include "experiments/run/problem_list.hpp"
#include "experiments/run/summary_json.hpp"
#include "experiments/run/timeseries_csv.hpp"
#include "policies/policy_registry.hpp"
#include "profiles/live_sps.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/sps_belief.hpp"
#include "profiles/time_model.hpp"
#include "sim/acceptance/acceptance_log.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/engine_preset.hpp"
#include "sim/metrics.hpp"
#include "traces/arrival_burstiness.hpp"
#include "traces/trace_loader.hpp"

namespace sparksim {

namespace {

// The workload options: exactly one workload, and numbers in range.
void check_workload_options(const RunOptions& o, ProblemList& problems) {
  const int workloads = (!o.trace_path.empty() ? 1 : 0) +
                        (o.closed_loop_users > 0 ? 1 : (!o.synthetic.empty() ? 1 : 0));
  if (workloads != 1) {
    problems.add(
        "choose exactly one workload: --trace PATH, --synthetic SPEC, or "
        "--closed-loop-users N with --synthetic SPEC");
  }
  if (o.closed_loop_users > 0 && o.synthetic.empty()) {
    problems.add("--closed-loop-users needs --synthetic SPEC for request lengths and duration_s");
  }
  if (o.closed_loop_users < 0) problems.add("--closed-loop-users must be >= 0");
  if (o.closed_loop_requests < 0) problems.add("--closed-loop-requests must be >= 0");
  if (o.closed_loop_requests > 0 && o.closed_loop_users == 0) {
    problems.add("--closed-loop-requests needs --closed-loop-users");
  }
  if (!(o.think_time_s >= 0) || !std::isfinite(o.think_time_s)) {
    problems.add("--think-time-s must be a finite number >= 0");
  }
  if (!(o.rate_scale > 0) || !std::isfinite(o.rate_scale)) {
    problems.add("--rate-scale must be a finite number > 0");
  }
  if (o.max_requests < 0) problems.add("--max-requests must be >= 0");
  for (const auto& [scale, option] : {std::pair{o.prompt_length_scale, "--prompt-length-scale"},
                                      {o.output_length_scale, "--output-length-scale"}}) {
    if (!(scale > 0) || !std::isfinite(scale)) {
      problems.add(std::string(option) + " must be a finite number > 0");
    } else if (scale != 1.0 && o.closed_loop_users > 0) {
      problems.add(std::string(option) +
                   ": a closed loop draws its lengths as it goes; scale the --synthetic "
                   "spec's lengths instead");
    }
  }
  if (o.arrival_cv != 0) {
    if (!std::isfinite(o.arrival_cv) || !(o.arrival_cv > 0) || o.arrival_cv > kMaxArrivalCv) {
      problems.add("--arrival-cv must be in (0, " + format_number(kMaxArrivalCv) +
                   "] (0, the default, keeps the workload's own arrivals)");
    } else if (o.closed_loop_users > 0) {
      problems.add(
          "--arrival-cv: a closed loop has no arrival process (each user sends when its last "
          "request ends); use an open-loop trace or --synthetic rate");
    }
  }
}

// The engine limits and the SPS belief (set in `setup` when valid).
void check_engine_options(const RunOptions& o, RunSetup& setup, ProblemList& problems) {
  if (o.max_running < 1 || o.max_running > 1'000'000) {
    problems.add("--max-running must be in [1, 1000000]");
  }
  if (o.max_batch_tokens < 1 || o.max_batch_tokens > 100'000'000) {
    problems.add("--max-batch-tokens must be in [1, 100000000]");
  }
  if (o.kv_capacity_tokens < 0) problems.add("--kv-capacity-tokens must be >= 0");
  if (o.host_overhead_us && !(*o.host_overhead_us >= 0 && *o.host_overhead_us < 1e9)) {
    problems.add("--host-overhead-us must be a finite number >= 0 (microseconds per step)");
  }
  if (o.prefill != "chunked" && o.prefill != "separate") {
    problems.add("--prefill: unknown mode '" + o.prefill + "'; valid: chunked, separate");
  }
  if (const auto belief = parse_sps_belief(o.sps)) {
    setup.sps_belief = *belief;
  } else {
    problems.add("--sps: unknown belief '" + o.sps + "'; valid: " + kSpsBeliefChoices);
  }
}

// The profile: in memory (plan's composed topologies) or loaded from --profile. True when loaded.
bool load_run_profile(const RunOptions& o, RunSetup& setup, ProblemList& problems) {
  bool have_profile = false;
  if (o.profile) {
    setup.profile = *o.profile;
    have_profile = true;
  } else if (o.profile_path.empty()) {
    problems.add("--profile PATH is required");
  } else {
    problems.check([&] {
      setup.profile = load_profile(o.profile_path);
      have_profile = true;
    });
  }
  return have_profile;
}

// --acceptance-log PATH is short for --acceptance replay:log=PATH (replay's other keys may still
// come through --acceptance replay:signal=X). Returns the acceptance spec text to parse.
std::string acceptance_text(const RunOptions& o, ProblemList& problems) {
  std::string acceptance = o.acceptance;
  if (!o.acceptance_log.empty()) {
    if (o.acceptance_log.find(',') != std::string::npos) {
      problems.add("--acceptance-log: the path must not contain ','");
    } else if (o.acceptance.rfind("replay", 0) == 0) {
      acceptance += o.acceptance == "replay" ? ":log=" : ",log=";
      acceptance += o.acceptance_log;
    } else if (o.acceptance != RunOptions{}.acceptance) {
      std::string message = "--acceptance-log replays a log; it cannot be combined with ";
      message += "--acceptance ";
      message += o.acceptance;
      problems.add(message);
    } else {
      acceptance = "replay:log=";
      acceptance += o.acceptance_log;
    }
  }
  return acceptance;
}

// Builds the policy and acceptance model once so that bad parameters are reported now
// (execute_run builds fresh instances); without a drafter only unknown names can be reported.
void check_policy_and_acceptance(const RunSetup& setup, const std::optional<DrafterSpec>& drafter,
                                 ProblemList& problems) {
  const RunOptions& o = setup.options;
  if (drafter) {
    // Build once here so bad parameters are reported now; execute_run builds fresh instances.
    problems.check([&] { make_policy(setup.policy_spec, PolicyContext{drafter->gamma}); });
    problems.check([&] {
      make_acceptance_model(setup.acceptance_spec,
                            AcceptanceContext{*drafter, setup.profile.target, o.seed});
    });
  } else {
    // Parameters depend on γ, but unknown names can still be reported now.
    problems.check([&] { find_policy(setup.policy_spec); });
    problems.check([&] { find_acceptance_model(setup.acceptance_spec); });
  }
}

// The trace file, or the synthetic spec (generated after every check passed).
void load_run_workload(const RunOptions& o, RunSetup& setup, ProblemList& problems) {
  if (!o.trace_path.empty()) {
    problems.check([&] {
      TraceOptions topt;
      if (!o.trace_format.empty()) topt.format = parse_trace_format(o.trace_format);
      if (!o.domain.empty()) {
        Domain d;
        if (!parse_domain(o.domain, d)) {
          throw InputError("--domain: unknown domain '" + o.domain +
                           "'; valid: " + valid_domain_list());
        }
        topt.domain = d;
      }
      topt.spread_buckets = o.spread_buckets;
      setup.trace = load_trace(o.trace_path, topt);
    });
  } else if (!o.synthetic.empty()) {
    problems.check([&] { setup.synthetic = parse_synthetic_spec(o.synthetic); });
  }
}

// The workload as simulated: a closed loop, or an open-loop trace (synthetic traffic generated
// from the seed) cut to --max-requests and scaled by --rate-scale.
void materialize_workload(const RunOptions& o, RunSetup& setup) {
  if (setup.synthetic && o.closed_loop_users > 0) {
    setup.closed_loop = ClosedLoopOptions{o.closed_loop_users, o.think_time_s,
                                          setup.synthetic->duration_s, o.closed_loop_requests};
    setup.trace.report.source = o.synthetic;
    setup.trace.report.format = "closed-loop";
  } else if (setup.synthetic) {
    setup.trace = generate_synthetic_trace(*setup.synthetic, o.seed);
  }
  if (!setup.closed_loop) {
    if (o.max_requests > 0 &&
        static_cast<std::int64_t>(setup.trace.requests.size()) > o.max_requests) {
      const auto dropped = static_cast<std::int64_t>(setup.trace.requests.size()) - o.max_requests;
      setup.trace.requests.resize(static_cast<std::size_t>(o.max_requests));
      setup.trace.report.rows_dropped += dropped;
      setup.trace.report.rows_kept -= dropped;
      setup.trace.report.notes.push_back("--max-requests " + std::to_string(o.max_requests) +
                                         ": dropped the last " + std::to_string(dropped) + " rows");
    }
    // Re-drawn before the rate scale, so --rate-scale X still means X times the source's rate.
    if (o.arrival_cv != 0) redraw_arrival_gaps(setup.trace, o.arrival_cv, o.seed);
    if (o.rate_scale != 1.0) scale_arrivals(setup.trace, o.rate_scale);
    if (o.prompt_length_scale != 1.0 || o.output_length_scale != 1.0) {
      scale_lengths(setup.trace, o.prompt_length_scale, o.output_length_scale);
    }
  }
}

// The engine's configuration from the options, the drafter and the profile.
void resolve_engine(const RunOptions& o, const DrafterSpec& drafter, RunSetup& setup) {
  EngineConfig& e = setup.engine;
  e.drafter = drafter;
  e.max_running = o.max_running;
  e.max_batch_tokens = o.max_batch_tokens;
  e.prefill_mode = o.prefill == "separate" ? PrefillMode::kSeparate : PrefillMode::kChunked;
  e.kv_capacity_tokens =
      o.kv_capacity_tokens > 0 ? o.kv_capacity_tokens : setup.profile.kv_capacity_tokens();
  e.policy_sees_hidden_outcome = find_policy(setup.policy_spec).sees_hidden_outcome;
  if (const EnginePreset* preset = o.engine.empty() ? nullptr : lookup_engine_preset(o.engine)) {
    e.front_end = preset->front_end;
  }
  setup.gpus = setup.profile.gpus * (e.prefill_mode == PrefillMode::kSeparate ? 2 : 1);
}

// DIR/steps.csv: every step's batch, one row per decode request or prefill chunk.
class StepsCsvWriter {
 public:
  StepsCsvWriter(std::ostream* out, const DrafterSpec& drafter)
      : out_(out),
        family_(drafter_family_name(drafter.family)),
        gamma_(std::to_string(drafter.gamma)) {
    if (out_ != nullptr) *out_ << kStepsCsvHeader << "\n";
  }
  void write(SimTime start, SimTime end, const std::vector<Engine::StepItem>& items) {
    text_.clear();
    for (const Engine::StepItem& item : items) {
      CsvRow(text_)
          .integer(step_index_)
          .fixed(static_cast<double>(end - start) / 1000.0, 3)
          .text(gamma_)
          .text(family_)
          .text(item.prefill ? "prefill" : "decode")
          .integer(static_cast<std::int64_t>(item.request))
          .integer(item.context)
          .integer(item.width)
          .integer(item.commits)
          .end();
    }
    *out_ << text_;
    ++step_index_;
  }

 private:
  std::ostream* out_;
  std::string family_;
  std::string gamma_;
  std::int64_t step_index_ = 0;
  std::string text_;  // reused: one allocation for the whole run
};

// summary.json of one run: identity, metrics, simulator speed and the trace's load report.
nlohmann::ordered_json run_summary(const RunSetup& setup, const SimulationStats& stats,
                                   const MetricsCollector& metrics,
                                   const AcceptanceModel& acceptance, double wall_s) {
  const AggregateCounters& c = metrics.counters();
  const double duration_s = sim_time_to_seconds(stats.end_time);
  const auto per = [](double num, double den) { return den > 0 ? num / den : 0.0; };
  nlohmann::ordered_json s;
  put_run_identity(s, setup.profile, setup.engine.drafter.name, setup.policy_spec.text(),
                   setup.sps_belief, setup.acceptance_spec.text(), acceptance);
  s["acceptance_notes"] = acceptance.notes();
  s["seed"] = setup.options.seed;
  MetricsTotals totals = totals_of(metrics);
  totals.requests_total = stats.requests_submitted;
  totals.requests_rejected_kv = stats.requests_rejected_kv;
  totals.end_time = stats.end_time;
  totals.gpus = setup.gpus;
  totals.kv_capacity_tokens = setup.engine.kv_capacity_tokens;
  put_metrics(s, totals);
  s["sim_wall_s"] = wall_s;
  s["request_steps_per_wall_s"] = per(static_cast<double>(c.request_steps), wall_s);
  s["speedup_vs_simulated_time"] = per(duration_s, wall_s);
  s["load_report"] = load_report_json(setup.trace.report);
  return s;
}

}  // namespace

RunSetup prepare_run(const RunOptions& o) {
  ProblemList problems;
  RunSetup setup{o,
                 {},
                 std::nullopt,
                 std::nullopt,
                 {},
                 {},
                 NamedSpec::parse("static", "--policy"),
                 NamedSpec::parse("bernoulli", "--acceptance"),
                 1};
  check_workload_options(o, problems);
  check_engine_options(o, setup, problems);
  const bool have_profile = load_run_profile(o, setup, problems);
  std::optional<DrafterSpec> drafter;
  problems.check([&] { drafter = parse_drafter(o.drafter); });
  // The one place every simulating command (run, cluster, sweep, plan, calibrate) meets a profile
  // and a drafter: a drafter the profile has no cost for is refused here, never run as free.
  if (have_profile && drafter) {
    problems.check([&] { require_draft_cost(setup.profile, *drafter); });
  }
  const EnginePreset* preset = nullptr;
  if (!o.engine.empty()) problems.check([&] { preset = &find_engine_preset(o.engine); });
  if (drafter && !drafter->speculates() && !o.write_acceptance_log.empty()) {
    problems.add("--write-acceptance-log: --drafter none drafts nothing, so there is no log");
  }
  problems.check([&] { setup.policy_spec = NamedSpec::parse(o.policy, "--policy"); });
  const std::string acceptance = acceptance_text(o, problems);
  problems.check([&] { setup.acceptance_spec = NamedSpec::parse(acceptance, "--acceptance"); });
  check_policy_and_acceptance(setup, drafter, problems);
  load_run_workload(o, setup, problems);
  problems.throw_if_any();
  if (o.host_overhead_us) setup.profile.host_overhead_us = *o.host_overhead_us;
  if (preset != nullptr) {
    setup.profile.memory_utilization =
        preset_memory_utilization(*preset, setup.profile.hbm_bytes, setup.profile.weights_bytes,
                                  setup.profile.reserved_bytes);
  }
  materialize_workload(o, setup);
  resolve_engine(o, *drafter, setup);
  return setup;
}

nlohmann::ordered_json run_config_json(const RunSetup& setup, bool policy_synchronous) {
  const RunOptions& o = setup.options;
  nlohmann::ordered_json cfg;
  cfg["sparksim_version"] = sparksim_version();
  cfg["sparksim_git_sha"] = sparksim_git_sha();
  cfg["workload"] =
      setup.closed_loop ? "closed-loop" : (o.trace_path.empty() ? "synthetic" : "trace");
  cfg["trace"] = o.trace_path;
  cfg["trace_format"] = setup.trace.report.format;
  cfg["domain_override"] = o.domain;
  cfg["spread_buckets"] = o.spread_buckets;
  cfg["synthetic"] = o.synthetic;
  cfg["closed_loop_users"] = o.closed_loop_users;
  if (o.closed_loop_requests > 0) cfg["closed_loop_requests"] = o.closed_loop_requests;
  cfg["think_time_s"] = o.think_time_s;
  cfg["rate_scale"] = o.rate_scale;
  // Only when set, like closed_loop_requests: every earlier config.json stays as it was.
  if (o.prompt_length_scale != 1.0) cfg["prompt_length_scale"] = o.prompt_length_scale;
  if (o.output_length_scale != 1.0) cfg["output_length_scale"] = o.output_length_scale;
  if (o.arrival_cv != 0) cfg["arrival_cv"] = o.arrival_cv;
  cfg["max_requests"] = o.max_requests;
  cfg["profile"] = o.profile_path;
  cfg["profile_source"] = setup.profile.provenance.source;
  cfg["profile_gpu"] = setup.profile.provenance.gpu;
  cfg["profile_target"] = setup.profile.target;
  cfg["drafter"] = setup.engine.drafter.name;
  cfg["gamma"] = setup.engine.drafter.gamma;
  cfg["policy"] = setup.policy_spec.text();
  cfg["acceptance"] = setup.acceptance_spec.text();
  cfg["write_acceptance_log"] = o.write_acceptance_log;
  cfg["write_steps"] = o.write_steps;
  cfg["seed"] = o.seed;
  cfg["engine_preset"] = o.engine;
  const EnginePreset* preset = o.engine.empty() ? nullptr : lookup_engine_preset(o.engine);
  cfg["engine_preset_name"] = preset != nullptr ? std::string(preset->name) : "";
  cfg["engine_version"] = preset != nullptr ? std::string(preset->version) : "";
  // Only when the preset has one, like closed_loop_requests: every earlier config.json stays.
  if (setup.engine.front_end.any()) {
    const FrontEndCosts& f = setup.engine.front_end;
    cfg["front_end"] = {{"latency_ms", f.latency_ms},
                        {"intake_batch_ms", f.intake_batch_ms},
                        {"intake_request_ms", f.intake_request_ms},
                        {"intake_prompt_token_us", f.intake_prompt_token_us},
                        {"chunk_us", f.chunk_us},
                        {"source", std::string(preset->front_end_source)}};
  }
  cfg["memory_utilization"] = setup.profile.memory_utilization;
  cfg["max_running"] = setup.engine.max_running;
  cfg["max_batch_tokens"] = setup.engine.max_batch_tokens;
  cfg["prefill"] = o.prefill;
  cfg["sps"] = sps_belief_name(setup.sps_belief);
  cfg["kv_capacity_tokens"] = setup.engine.kv_capacity_tokens;
  cfg["kv_capacity_from_profile"] = o.kv_capacity_tokens == 0;
  cfg["host_overhead_us"] = setup.profile.host_overhead_us;
  cfg["host_overhead_from_profile"] = !o.host_overhead_us.has_value();
  cfg["policy_synchronous"] = policy_synchronous;
  return cfg;
}

std::unique_ptr<Workload> make_run_workload(const RunSetup& setup) {
  if (setup.closed_loop) {
    return std::make_unique<ClosedLoopWorkload>(*setup.synthetic, *setup.closed_loop,
                                                setup.options.seed);
  }
  return std::make_unique<OpenLoopWorkload>(setup.trace.requests);
}

RunOutcome execute_run(const RunSetup& setup, std::ostream* requests_csv,
                       std::ostream* acceptance_log, std::ostream* steps_csv,
                       const Engine::CompletionHandler& on_request_done) {
  const auto wall_start = std::chrono::steady_clock::now();
  const RunOptions& o = setup.options;
  const TimeModel time_model(setup.profile);
  const SpsTable sps = make_sps_table(
      setup.profile, setup.sps_belief,
      std::max<std::int64_t>(setup.engine.max_batch_tokens,
                             setup.engine.max_running * (setup.engine.drafter.gamma + 1)));
  auto policy = make_policy(setup.policy_spec, PolicyContext{setup.engine.drafter.gamma});
  auto acceptance = make_acceptance_model(
      setup.acceptance_spec, AcceptanceContext{setup.engine.drafter, setup.profile.target, o.seed});
  if (acceptance_log != nullptr) {
    const std::string& reproduced = acceptance->reproduces();
    acceptance = std::make_unique<AcceptanceLogRecorder>(
        std::move(acceptance), *acceptance_log,
        AcceptanceLogHeader{
            setup.engine.drafter.gamma, setup.engine.drafter.name, setup.profile.target,
            reproduced.empty() ? setup.acceptance_spec.text() : reproduced, o.seed});
  }
  MetricsCollector metrics(requests_csv);
  Engine engine(setup.engine, time_model, sps, *acceptance, *policy, metrics);
  LiveSps live(time_model);
  if (setup.sps_belief == SpsBelief::kLive) engine.use_live_sps(&live);
  // Lives as long as the simulation: the engine calls it at the end of every step.
  StepsCsvWriter steps_writer(steps_csv, setup.engine.drafter);
  if (steps_csv != nullptr) {
    engine.set_step_observer(
        [&steps_writer](SimTime start, SimTime end, const std::vector<Engine::StepItem>& items) {
          steps_writer.write(start, end, items);
        });
  }

  const std::unique_ptr<Workload> workload = make_run_workload(setup);
  RunOutcome out;
  out.stats = run_simulation(engine, *workload, on_request_done);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  out.summary = run_summary(setup, out.stats, metrics, *acceptance, wall_s);
  out.config = run_config_json(setup, policy->synchronous());

  out.timeseries_csv = timeseries_csv(metrics.per_second());
  return out;
}

nlohmann::ordered_json run_to_directory(const RunOptions& options) {
  if (options.out_dir.empty()) throw InputError("--out DIR is required");
  const RunSetup setup = prepare_run(options);  // all input errors surface before any output
  StagedDirectory dir(options.out_dir);
  // The acceptance log goes to a temporary name next to its final path, renamed after the run.
  const std::string& log_path = options.write_acceptance_log;
  const std::string log_partial = log_path + ".partial-" + std::to_string(::getpid());
  std::ofstream log;
  if (!log_path.empty()) {
    log.open(log_partial, std::ios::binary);
    if (!log) throw InputError(log_path, 0, "cannot create the acceptance log");
  }
  RunOutcome outcome;
  try {
    std::ofstream requests(dir.file("requests.csv"), std::ios::binary);
    std::ofstream steps;
    if (options.write_steps) steps.open(dir.file("steps.csv"), std::ios::binary);
    outcome = execute_run(setup, &requests, log_path.empty() ? nullptr : &log,
                          options.write_steps ? &steps : nullptr);
    if (!requests) throw std::runtime_error("failed writing requests.csv");
    if (options.write_steps && !steps) throw std::runtime_error("failed writing steps.csv");
    if (!log_path.empty()) {
      log.close();
      if (!log) throw std::runtime_error("failed writing " + log_path);
    }
  } catch (...) {
    if (!log_path.empty()) std::filesystem::remove(log_partial);
    throw;
  }
  const auto write = [&](const std::string& name, const std::string& text) {
    write_file_bytes(dir.file(name), text);
  };
  write("summary.json", outcome.summary.dump(2) + "\n");
  write("config.json", outcome.config.dump(2) + "\n");
  write("timeseries.csv", outcome.timeseries_csv);
  if (!log_path.empty()) std::filesystem::rename(log_partial, log_path);
  dir.commit();
  return outcome.summary;
}

}  // namespace sparksim
