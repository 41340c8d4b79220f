// The `sparksim` subcommands: one file per subcommand, each registering itself on the root app.
// A command's callback parses into a plain options struct, validates it (throwing InputError for
// bad input, before any work starts) and runs. main() owns the exit codes.
#pragma once

#include <CLI/CLI.hpp>

namespace sparksim::cli {

void add_run_command(CLI::App& app);               // run_command.cpp: one simulation, writes DIR/
void add_policies_command(CLI::App& app);          // policies_command.cpp: lists the registry
void add_profile_analytic_command(CLI::App& app);  // profile_analytic_command.cpp: roofline profile
void add_profile_command(CLI::App& app);           // profile_command.cpp: measured, needs a GPU
void add_profile_moe_command(CLI::App& app);       // profile_moe_command.cpp: DeepSeek-V4 replicas
void add_pareto_command(CLI::App& app);            // pareto_command.cpp: sweeps, frontiers, report
void add_merge_command(CLI::App& app);             // merge_command.cpp: joins --shard outputs
void add_slo_command(CLI::App& app);               // slo_command.cpp: SLA tiers against a baseline
void add_plan_command(CLI::App& app);              // plan_command.cpp: replicas needed for an SLO
void add_cluster_command(CLI::App& app);           // cluster_command.cpp: replicas on SimGrid
void add_lossless_command(CLI::App& app);          // lossless_command.cpp: losslessness validator
void add_fit_telemetry_command(CLI::App& app);     // fit_telemetry_command.cpp: V4 telemetry fit
void add_v4_topologies_command(CLI::App& app);     // v4_topologies_command.cpp: V4 topology sweep
void add_calibrate_command(CLI::App& app);         // calibrate_command.cpp: STS from a log or run
void add_heterogeneity_command(CLI::App& app);     // heterogeneity_command.cpp: vs Spec-Bench
void add_validate_command(CLI::App& app);          // validate_command.cpp: replay real benchmarks
void add_profile_measured_db_command(CLI::App& app);   // profile_measured_db_command.cpp
void add_recalibrate_analytic_command(CLI::App& app);  // recalibrate_analytic_command.cpp
void add_step_time_command(CLI::App& app);  // step_time_command.cpp: a profile's step time
// calibrate_kernels_command.cpp: calibrate-fit (measured profile from a kernel sweep) and
// calibrate-fidelity (predicted against replayed step times)
void add_calibrate_kernels_commands(CLI::App& app);

// Thrown by a command that finished its work but must exit with a code of its own (`sparksim
// lossless` exits 3 when it detects distortion); main() returns `code`.
struct CommandExit {
  int code;
};

}  // namespace sparksim::cli
