// The sensitivity command's work: config, study over simulated sweeps, files.
#include "experiments/sensitivity/sensitivity_experiment.hpp"

#include <chrono>
#include <filesystem>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/staged_directory.hpp"
#include "common/text_file.hpp"
#include "common/version.hpp"
#include "experiments/report/gnuplot.hpp"
#include "experiments/run/parallel_runner.hpp"
#include "experiments/sensitivity/plan_study_outputs.hpp"
#include "experiments/sensitivity/sensitivity_report.hpp"
#include "experiments/sensitivity/sweep_outputs.hpp"
#include "experiments/sensitivity/tornado_chart.hpp"

namespace sparksim {

namespace {

namespace fs = std::filesystem;

// What was run, so a reader can rerun it: the inputs, the reduced experiment, the producer.
std::string study_json(const SensitivityConfig& c, const std::vector<StudyOutput>& outputs) {
  nlohmann::ordered_json j;
  j["schema"] = "sparksim.sensitivity-result/1";
  j["config"] = c.path;
  j["producer"] = "sparksim " + sparksim_version() + " sensitivity";
  // A plan's file as read (its keys are plan's options); a comparison resolved, reductions applied.
  j["experiment"] = c.plan ? nlohmann::ordered_json(c.plan->document) : c.experiment.resolved();
  j["profile"] = c.profile_label;
  if (c.topology) {
    j["topology_experiment"] = c.experiment_path;
    for (const auto& row : c.topology->rows) j["rows"].push_back(row.name);
  }
  for (const auto& in : c.inputs) {
    j["inputs"].push_back(
        {{"input", in.label()}, {"low", in.low_text()}, {"high", in.high_text()}});
  }
  for (const auto& o : outputs) j["outputs"].push_back(o.name);
  return format_json(j);
}

}  // namespace

SensitivityRun run_sensitivity(const SensitivityOptions& o) {
  if (o.config_path.empty()) throw InputError("--config PATH is required");
  if (o.out_dir.empty()) throw InputError("--out DIR is required");
  if (o.jobs < 0) throw InputError("--jobs must be >= 1 (or 0 for every CPU it may use)");
  require_gnuplot();
  SensitivityRun run;
  run.config = load_sensitivity_config(o.config_path);
  const SensitivityConfig& c = run.config;
  const int jobs = o.jobs > 0 ? o.jobs : default_jobs();
  SensitivityModel model;
  if (c.plan) {
    const auto plan_outs = plan_study_outputs(*c.plan);
    for (const auto& p : plan_outs) run.outputs.push_back({p.name, p.is_comparison()});
    model = [&c, plan_outs, jobs](const std::vector<double>& values) {
      return evaluate_plan_outputs(*c.plan, c.profile, c.inputs, values, plan_outs, jobs);
    };
  } else if (c.topology) {
    const auto row_outs = topology_study_outputs(*c.topology);
    for (const auto& r : row_outs) run.outputs.push_back({r.output.name, true});
    model = [&c, row_outs, jobs](const std::vector<double>& values) {
      return evaluate_topology_outputs(*c.topology, c.inputs, values, row_outs, jobs);
    };
  } else {
    const auto sweep_outs = sweep_outputs(c.experiment);
    for (const auto& s : sweep_outs) run.outputs.push_back({s.name, s.is_comparison()});
    model = [&c, sweep_outs, jobs](const std::vector<double>& values) {
      const AppliedInputs a = applied_inputs(c.experiment, c.profile, c.inputs, values);
      return evaluate_sweep_outputs(a.config, a.adjust, sweep_outs, jobs);
    };
  }
  const auto start = std::chrono::steady_clock::now();
  run.result = run_study(c.inputs, run.outputs, model, c.break_even, c.joint);
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::vector<std::string> names;
  for (const auto& out : run.outputs) names.push_back(out.name);
  StagedDirectory dir(fs::path(o.out_dir).lexically_normal());
  write_file_bytes(dir.file("study.json"), study_json(c, run.outputs));
  write_file_bytes(dir.file("sensitivity.csv"), sensitivity_csv(c.inputs, run.outputs, run.result));
  if (c.break_even) {
    write_file_bytes(dir.file("break_even.csv"), break_even_csv(c.inputs, run.outputs, run.result));
  }
  if (c.joint) {
    write_file_bytes(dir.file("sobol.csv"), sobol_csv(c.inputs, run.outputs, run.result, *c.joint));
  }
  write_file_bytes(
      dir.file("tornado.gp"),
      tornado_gnuplot_script(c.inputs, names, run.result.one_at_a_time, c.profile_label));
  run_gnuplot(dir.path(), "tornado.gp");
  const StudyDescription d{c.title,           c.about,
                           c.experiment_path, c.experiment_title,
                           c.profile_label,   "sparksim " + sparksim_version()};
  write_file_bytes(dir.file("report.html"),
                   sensitivity_report_html(d, c.inputs, run.outputs, run.result, dir.path()));
  dir.commit();
  return run;
}

}  // namespace sparksim
