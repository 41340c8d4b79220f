// `sparksim profile telemetry`: fits a per-GPU DeepSeek-V4 profile to a deployed MTP-1 baseline's
// measured curve, simulates the baseline on it at every telemetry point, prints the points with
// their errors and writes the profile (provenance "telemetry") and, optionally, the report CSV.
// Bad telemetry or options stop with exit 2 before anything is simulated or written.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>

#include "common/json_file.hpp"
#include "common/version.hpp"
#include "experiments/calibrate/telemetry_calibration.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/cli/output_directory.hpp"
#include "experiments/cli/provenance_options.hpp"
#include "profiles/profile_io.hpp"

namespace sparksim::cli {

namespace {

struct FitTelemetryCommandOptions {
  std::string telemetry_path;
  std::string out_path;
  std::string report_path;
  TelemetryCalibrationOptions calibration;
};

void run_fit_telemetry(FitTelemetryCommandOptions o) {
  o.calibration.date = date_or_today(o.calibration.date);
  const TelemetryCurve curve = load_telemetry(o.telemetry_path);
  const TelemetryCalibration cal = calibrate_to_telemetry(curve, o.calibration);
  std::printf(
      "%s: %s fitted to %zu points (tau %.3f, routing group %g): step = %.1f us + %.4f "
      "us/token + %.1f us x saturation\n",
      o.telemetry_path.c_str(), curve.target.c_str(),
      static_cast<std::size_t>(std::count(cal.fit.fitted.begin(), cal.fit.fitted.end(), true)),
      cal.fit.tokens_per_step, cal.fit.routing_group, cal.fit.fixed_us, cal.fit.per_token_us,
      cal.fit.expert_stream_us);
  std::printf("%-11s %6s %9s %12s %12s %12s %8s\n", "curve", "fitted", "conc/GPU", "tok/s/GPU",
              "simulated", "tok/s/user", "error");
  for (std::size_t i = 0; i < cal.rows.size(); ++i) {
    const TelemetryCheckRow& r = cal.rows[i];
    std::printf("%-11s %6s %9.1f %12.0f %12.0f %12.1f %+7.2f%%\n", r.point.curve.c_str(),
                cal.fit.fitted[i] ? "yes" : "no", r.point.concurrency_per_gpu,
                r.point.tok_s_per_gpu, r.simulated_tok_s_per_gpu, r.point.tok_s_per_user(),
                100.0 * r.relative_error);
  }
  std::printf("largest |error| over the fitted points: %.2f%%\n", 100.0 * cal.worst_abs_error());
  for (const std::string& path : {o.out_path, o.report_path}) create_parent_directory(path);
  write_profile(cal.profile, o.out_path);
  if (!o.report_path.empty()) write_file_atomically(o.report_path, cal.report_csv());
}

}  // namespace

void add_profile_telemetry_command(CLI::App& profile) {
  auto o = std::make_shared<FitTelemetryCommandOptions>();
  o->calibration.git_sha = sparksim_git_sha();
  CLI::App* cmd = profile.add_subcommand(
      "telemetry",
      "fit a DeepSeek-V4 per-GPU profile to a deployed MTP-1 baseline's measured curve");
  cmd->add_option("--telemetry", o->telemetry_path, "telemetry JSON (sparksim.telemetry/1)")
      ->required();
  cmd->add_option("--out", o->out_path, "profile JSON to write (provenance telemetry)")->required();
  cmd->add_option("--report", o->report_path, "CSV of the points, fitted and simulated");
  cmd->add_option("--reference-gpu", o->calibration.reference_gpu,
                  "GPU of the analytic reference (memory, drafter shapes)")
      ->capture_default_str();
  cmd->add_option("--reference-topology", o->calibration.reference_topology,
                  "dep<N> of the reference (default: Flash dep8, Pro dep32)");
  cmd->add_option("--expert-format", o->calibration.expert_format, "fp4 or fp8")
      ->capture_default_str();
  cmd->add_option("--curves", o->calibration.curves,
                  "curves entering the fit: both, concurrency or frontier (all are simulated)")
      ->capture_default_str();
  cmd->add_option("--duration-s", o->calibration.duration_s,
                  "simulated seconds per telemetry point")
      ->capture_default_str();
  cmd->add_option("--seed", o->calibration.seed, "simulation seed")->capture_default_str();
  add_provenance_options(*cmd, o->calibration.date, o->calibration.git_sha);
  cmd->callback([o] { run_fit_telemetry(*o); });
}

}  // namespace sparksim::cli
