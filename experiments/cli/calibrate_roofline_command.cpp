// `sparksim calibrate roofline`: fits the analytic generator's efficiency constants to the
// measured-db compositions of every (GPU, target) pair (profiles/step_composition/
// analytic_recalibration.hpp) and prints the constants before and after and, per pair, the
// analytic profile's error against the database by region before and after. The recalibration
// table in profiles/README.md comes from this command. With --write FILE it also writes the fitted
// constants with their provenance (profiles/fitted_roofline_constants.hpp), which
// `sparksim profile analytic --constants FILE` reads: the path by which a GPU without database
// rows inherits the fit.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/version.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/cli/provenance_options.hpp"
#include "profiles/fitted_roofline_constants.hpp"
#include "profiles/kernel_db/kernel_database.hpp"
#include "profiles/step_composition/analytic_recalibration.hpp"

namespace sparksim::cli {

namespace {

struct RecalibrateAnalyticOptions {
  std::string database_dir = "profiles/data/aic";
  std::string shapes_path = "profiles/model_shapes.json";
  std::vector<std::string> gpus{"h100-sxm", "h200-sxm"};
  std::vector<std::string> targets{"qwen3-4b", "qwen3-8b", "qwen3-14b"};
  std::string write_path;  // empty: write nothing
  std::string date;        // empty: today (UTC)
  std::string git_sha = sparksim_git_sha();
};

// `digits` significant digits: the written constants are the ones a profile then uses, and a
// fit's last bits (which may differ between builds) must not change the bundled file.
double rounded(double x, int digits) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, x);
  return std::strtod(buffer, nullptr);
}

FittedRooflineConstants fitted_file(const RecalibrateAnalyticOptions& o,
                                    const RecalibrationResult& r) {
  FittedRooflineConstants f;
  std::string folder;  // unused: every pair's GPU shares database.json's identity
  const DatabaseIdentity id =
      KernelDatabase::load_identity(o.database_dir, r.pairs.front().gpu, &folder);
  f.database = id.name;
  f.database_repository = id.repository;
  f.database_commit = id.commit;
  f.framework = id.framework;
  for (const RecalibrationPair& p : r.pairs) f.pairs.push_back(p.gpu + "/" + p.target);
  f.constants.bandwidth_efficiency = rounded(r.after.bandwidth_efficiency, 6);
  f.constants.gemm_efficiency = rounded(r.after.gemm_efficiency, 6);
  f.constants.attention_efficiency = rounded(r.after.attention_efficiency, 6);
  f.constants.kernel_overhead_us = rounded(r.after.kernel_overhead_us, 6);
  f.constants.step_fixed_us = rounded(r.after.step_fixed_us, 6);
  f.rms_relative_error_before = rounded(r.rms_relative_before, 4);
  f.rms_relative_error_after = rounded(r.rms_relative_after, 4);
  f.date = date_or_today(o.date);
  f.tool = "sparksim recalibrate-analytic";
  f.git_sha = o.git_sha;
  return f;
}

std::vector<double> values_of(const RooflineConstants& c) {
  return {c.bandwidth_efficiency, c.gemm_efficiency, c.attention_efficiency, c.kernel_overhead_us,
          c.step_fixed_us};
}

std::string cell(const RegionError& e) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%5.2f / %+6.1f", e.mean_abs_pct, e.worst_signed_pct);
  return buffer;
}

void run(const RecalibrateAnalyticOptions& o) {
  check_date_option(o.date);
  if (o.gpus.empty() || o.targets.empty())
    throw InputError("--gpus and --targets: give at least one");
  const JsonFile shapes = JsonFile::load(o.shapes_path);
  std::vector<RecalibrationPair> pairs;
  for (const std::string& g : o.gpus) {
    for (const std::string& t : o.targets) pairs.push_back({g, t});
  }
  const RecalibrationResult r = recalibrate_analytic(o.database_dir, shapes, pairs);
  std::printf("analytic roofline constants fitted to measured-db compositions (%d LM iterations)\n",
              r.iterations);
  const std::vector<double> before = values_of(r.before);
  const std::vector<double> after = values_of(r.after);
  for (std::size_t i = 0; i < before.size(); ++i) {
    std::printf("  %-22s %10.4f -> %10.4f\n", kRecalibratedConstants[i], before[i], after[i]);
  }
  std::printf("  rms relative error      %9.2f %% -> %8.2f %%\n", 100 * r.rms_relative_before,
              100 * r.rms_relative_after);
  std::printf("analytic vs database, all fidelity points: MAPE / worst %%, before -> after\n");
  for (std::size_t i = 0; i < r.pairs.size(); ++i) {
    std::printf("%s / %s\n", r.pairs[i].gpu.c_str(), r.pairs[i].target.c_str());
    const FitErrorReport& b = r.error_before[i];
    const FitErrorReport& a = r.error_after[i];
    for (std::size_t k = 0; k < b.regions.size() && k < a.regions.size(); ++k) {
      std::printf("  %-16s %s -> %s\n", b.regions[k].region.c_str(), cell(b.regions[k]).c_str(),
                  cell(a.regions[k]).c_str());
    }
    std::printf("  %-16s %s -> %s\n", "all", cell(b.overall).c_str(), cell(a.overall).c_str());
  }
  if (!o.write_path.empty()) {
    write_fitted_roofline_constants(fitted_file(o, r), o.write_path);
    std::printf(
        "wrote %s (constants to 6 significant digits; `sparksim profile analytic --constants` "
        "reads it)\n",
        o.write_path.c_str());
  }
}

}  // namespace

void add_calibrate_roofline_command(CLI::App& calibrate) {
  auto options = std::make_shared<RecalibrateAnalyticOptions>();
  CLI::App* cmd = calibrate.add_subcommand(
      "roofline",
      "fit the analytic (roofline) generator's efficiency constants to measured-db compositions "
      "and report the analytic-vs-database error before and after");
  cmd->add_option("--database", options->database_dir, "database folder (with database.json)")
      ->capture_default_str();
  cmd->add_option("--shapes", options->shapes_path, "model and GPU shapes (JSON)")
      ->capture_default_str();
  cmd->add_option("--gpus", options->gpus, "GPUs as the database names them")
      ->capture_default_str();
  cmd->add_option("--targets", options->targets, "dense targets")->capture_default_str();
  cmd->add_option("--write", options->write_path,
                  "also write the fitted constants and their provenance to this JSON file "
                  "(atomically), for profile analytic --constants");
  add_provenance_options(*cmd, options->date, options->git_sha);
  cmd->callback([options] { run(*options); });
}

}  // namespace sparksim::cli
