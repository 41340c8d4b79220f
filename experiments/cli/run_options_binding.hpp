// The workload, system, acceptance and engine options of `sparksim run`, declared once and bound
// to a RunOptions by every subcommand that simulates one (run, cluster, plan), so that an option
// means and is spelled the same in all of them. docs/cli.md describes each option.
#pragma once

#include <CLI/CLI.hpp>

#include "experiments/run/run_experiment.hpp"

namespace sparksim::cli {

enum class ClosedLoop { kAllowed, kNotOffered };

// --trace, --trace-format, --domain, --spread-buckets, --synthetic, --rate-scale,
// --max-requests, and (kAllowed) --closed-loop-users, --think-time-s.
void add_workload_options(CLI::App& cmd, RunOptions& run, ClosedLoop closed_loop);
// --profile, with what it describes for this subcommand (one replica, every replica, ...).
void add_profile_option(CLI::App& cmd, RunOptions& run, const std::string& description);
// --drafter and --policy: the one system a run or cluster simulates.
void add_system_options(CLI::App& cmd, RunOptions& run);
// --acceptance, --acceptance-log, --seed.
void add_acceptance_options(CLI::App& cmd, RunOptions& run);
// --engine (a preset: sim/engine_preset.hpp), --max-running, --max-batch-tokens, --prefill,
// --sps, --kv-capacity-tokens, --host-overhead-us; each per replica where a subcommand runs
// several.
void add_engine_options(CLI::App& cmd, RunOptions& run);
// Call in the command's callback, before prepare_run(): `--engine NAME` copies the preset's
// limits into `run`; flags given explicitly on the same command line (--max-running,
// --max-batch-tokens, --prefill) keep their values. An unknown name is left for prepare_run to
// report with the other problems.
void apply_engine_preset(const CLI::App& cmd, RunOptions& run);

// `--policy help` and `--acceptance help` list the registries instead of running: prints the
// list asked for and returns true, or returns false when neither was asked for.
bool print_requested_help(const RunOptions& run);

}  // namespace sparksim::cli
