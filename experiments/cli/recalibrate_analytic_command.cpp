// `sparksim recalibrate-analytic`: fits the analytic generator's efficiency constants to the
// measured-db compositions of every (GPU, target) pair (profiles/measured_db/
// analytic_recalibration.hpp) and prints the constants before and after and, per pair, the
// analytic profile's error against the database by region before and after. The recalibration
// table in profiles/README.md comes from this command. It writes nothing.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/json_file.hpp"
#include "experiments/cli/commands.hpp"
#include "profiles/measured_db/analytic_recalibration.hpp"

namespace sparksim::cli {

namespace {

struct RecalibrateAnalyticOptions {
  std::string database_dir = "profiles/data/aic";
  std::string shapes_path = "profiles/model_shapes.json";
  std::vector<std::string> gpus{"h100-sxm", "h200-sxm"};
  std::vector<std::string> targets{"qwen3-4b", "qwen3-8b", "qwen3-14b"};
};

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
}

}  // namespace

void add_recalibrate_analytic_command(CLI::App& app) {
  auto options = std::make_shared<RecalibrateAnalyticOptions>();
  CLI::App* cmd = app.add_subcommand(
      "recalibrate-analytic",
      "Fit the analytic generator's efficiency constants to measured-db compositions; report "
      "the analytic-vs-database error before and after");
  cmd->add_option("--database", options->database_dir, "Database folder (with database.json)")
      ->capture_default_str();
  cmd->add_option("--shapes", options->shapes_path, "Model and GPU shapes (JSON)")
      ->capture_default_str();
  cmd->add_option("--gpus", options->gpus, "GPUs as the database names them")
      ->capture_default_str();
  cmd->add_option("--targets", options->targets, "Dense targets")->capture_default_str();
  cmd->callback([options] { run(*options); });
}

}  // namespace sparksim::cli
