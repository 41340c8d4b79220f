// The `sparksim` commands: one file per command, each registering itself on the app it is given
// (the root, or its group: `profile` or `calibrate`; command_tree.cpp builds the tree). A
// command's callback parses into a plain options struct, validates it (throwing InputError for
// bad input, before any work starts) and runs. main() owns the exit codes.
#pragma once

#include <CLI/CLI.hpp>

namespace sparksim::cli {

// Top-level commands.
void add_run_command(CLI::App& app);            // run_command.cpp: one simulation, writes DIR/
void add_cluster_command(CLI::App& app);        // cluster_command.cpp: replicas on SimGrid
void add_plan_command(CLI::App& app);           // plan_command.cpp: replicas needed for an SLO
void add_pareto_command(CLI::App& app);         // pareto_command.cpp: sweeps, frontiers, report
void add_merge_command(CLI::App& app);          // merge_command.cpp: joins --shard outputs
void add_slo_command(CLI::App& app);            // slo_command.cpp: SLA tiers against a baseline
void add_v4_topologies_command(CLI::App& app);  // v4_topologies_command.cpp: V4 topology sweep
void add_step_time_command(CLI::App& app);      // step_time_command.cpp: a profile's step time
void add_policies_command(CLI::App& app);       // policies_command.cpp: lists the registry
void add_lossless_command(CLI::App& app);       // lossless_command.cpp: losslessness validator
void add_validate_command(CLI::App& app);       // validate_command.cpp: replay real benchmarks
void add_sensitivity_command(CLI::App& app);    // sensitivity_command.cpp: tornado, break-even

// `sparksim profile SOURCE`: each writes a replica profile from one source.
void add_profile_analytic_command(CLI::App& profile);     // profile_analytic_command.cpp: roofline
void add_profile_kernels_command(CLI::App& profile);      // profile_command.cpp: needs a GPU
void add_profile_measured_db_command(CLI::App& profile);  // profile_measured_db_command.cpp
void add_profile_moe_command(CLI::App& profile);          // profile_moe_command.cpp: DeepSeek-V4
void add_profile_telemetry_command(CLI::App& profile);    // profile_telemetry_command.cpp

// `sparksim calibrate WHAT`: each fits a model's parameters to measurements and reports the fit.
void add_calibrate_confidence_command(CLI::App& calibrate);     // calibrate_confidence_command.cpp
void add_calibrate_heterogeneity_command(CLI::App& calibrate);  // vs Spec-Bench acceptance data
void add_calibrate_roofline_command(CLI::App& calibrate);       // calibrate_roofline_command.cpp
// calibrate_kernels_command.cpp: kernels-fit (measured profile from a kernel sweep) and
// kernels-fidelity (predicted against replayed step times)
void add_calibrate_kernels_commands(CLI::App& calibrate);

// Thrown by a command that finished its work but must exit with a code of its own (`sparksim
// lossless` exits 3 when it detects distortion); main() returns `code`.
struct CommandExit {
  int code;
};

}  // namespace sparksim::cli
