// sparksim entry point: builds the subcommand tree and maps failures to exit codes:
// 0 success, 2 usage/configuration/input errors (nothing simulated, no output left), 1 runtime.
#include <cstdio>
#include <exception>

#include "common/input_error.hpp"
#include "experiments/cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"sparksim: discrete-event simulator of LLM serving with speculative decoding"};
  app.require_subcommand(1);
  sparksim::cli::add_run_command(app);
  sparksim::cli::add_profile_analytic_command(app);
  sparksim::cli::add_profile_command(app);
  sparksim::cli::add_profile_moe_command(app);
  sparksim::cli::add_profile_measured_db_command(app);
  sparksim::cli::add_recalibrate_analytic_command(app);
  sparksim::cli::add_step_time_command(app);
  sparksim::cli::add_policies_command(app);
  sparksim::cli::add_calibrate_command(app);
  sparksim::cli::add_fit_telemetry_command(app);
  sparksim::cli::add_heterogeneity_command(app);
  sparksim::cli::add_calibrate_kernels_commands(app);
  sparksim::cli::add_pareto_command(app);
  sparksim::cli::add_merge_command(app);
  sparksim::cli::add_slo_command(app);
  sparksim::cli::add_v4_topologies_command(app);
  sparksim::cli::add_plan_command(app);
  sparksim::cli::add_cluster_command(app);
  sparksim::cli::add_lossless_command(app);
  sparksim::cli::add_validate_command(app);
  try {
    app.parse(argc, argv);
  } catch (const sparksim::cli::CommandExit& e) {
    return e.code;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const sparksim::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "runtime error: %s\n", e.what());
    return 1;
  }
  return 0;
}
