// STS calibration from a log or a simulated run.
#include "experiments/calibrate/calibrate_experiment.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "common/input_error.hpp"
#include "sim/acceptance/acceptance_log.hpp"
#include "sim/acceptance/sequential_temperature_scaling.hpp"

namespace sparksim {

namespace {

nlohmann::ordered_json metrics_json(const std::vector<PositionMetrics>& m) {
  nlohmann::ordered_json j;
  std::vector<double> ece, auc, brier, predicted, observed;
  for (const auto& p : m) {
    ece.push_back(p.ece);
    auc.push_back(p.auc);
    brier.push_back(p.brier);
    predicted.push_back(p.mean_predicted);
    observed.push_back(p.mean_observed);
  }
  j["ece"] = ece;
  j["roc_auc"] = auc;
  j["brier"] = brier;
  j["mean_predicted"] = predicted;
  j["mean_observed"] = observed;
  j["mean_ece"] = mean_ece(m);
  j["mean_roc_auc"] = mean_auc(m);
  return j;
}

}  // namespace

CalibrateResult run_calibration(const CalibrateOptions& o) {
  std::vector<std::string> problems;
  const bool simulate = o.acceptance_log.empty();
  if (o.out_path.empty()) problems.push_back("--out PATH (the temperatures file) is required");
  if (!(o.heldout_fraction > 0.0 && o.heldout_fraction < 1.0)) {
    problems.push_back("--heldout-fraction must be in (0, 1)");
  }
  if (!simulate && (!o.run.trace_path.empty() || !o.run.synthetic.empty())) {
    problems.emplace_back(
        "give --acceptance-log or a workload to simulate (--trace/--synthetic), "
        "not both");
  }
  if (!simulate && looks_like_json_lines(o.acceptance_log)) {
    problems.push_back(o.acceptance_log +
                       ": a Spec-Bench file records no confidences; calibrate needs a sparksim "
                       "acceptance log (sparksim run --write-acceptance-log)");
  }
  std::optional<RunSetup> setup;
  if (simulate) {
    try {
      setup = prepare_run(o.run);
    } catch (const InputError& e) {
      problems.push_back(e.what());
    }
  }
  if (!problems.empty()) {
    std::string all;
    for (std::size_t i = 0; i < problems.size(); ++i) all += (i ? "\nerror: " : "") + problems[i];
    throw InputError(all);
  }

  CalibrateResult result;
  AcceptanceLog log;
  if (simulate) {
    std::stringstream buffer;
    execute_run(*setup, nullptr, &buffer);
    result.source = "simulated: drafter " + setup->engine.drafter.name + ", target " +
                    setup->profile.target + ", acceptance " + setup->acceptance_spec.text() +
                    ", seed " + std::to_string(o.run.seed) + ", workload " +
                    (o.run.trace_path.empty() ? o.run.synthetic : o.run.trace_path);
    log = read_acceptance_log(buffer, "<simulated run>");
  } else {
    log = read_acceptance_log_file(o.acceptance_log);
    result.source = o.acceptance_log;
  }
  result.gamma = log.header.gamma;
  auto [fit, held] = split_by_request(log.to_sample(), o.heldout_fraction, o.split_seed);
  if (fit.rows() == 0 || held.rows() == 0) {
    throw InputError(result.source + ": too few requests to hold some out (fit " +
                     std::to_string(fit.rows()) + " rows, held out " + std::to_string(held.rows()) +
                     ")");
  }
  result.rows_fit = static_cast<std::int64_t>(fit.rows());
  result.rows_heldout = static_cast<std::int64_t>(held.rows());
  result.temperatures = fit_sts_temperatures(fit);
  result.before = evaluate_confidences(held);
  result.after = evaluate_confidences(held, result.temperatures);

  nlohmann::ordered_json extra;
  extra["source"] = result.source;
  extra["drafter"] = log.header.drafter;
  extra["target"] = log.header.target;
  extra["acceptance"] = log.header.acceptance;
  extra["heldout_fraction"] = o.heldout_fraction;
  extra["split_seed"] = o.split_seed;
  extra["rows_fit"] = result.rows_fit;
  extra["rows_heldout"] = result.rows_heldout;
  extra["heldout_before"] = metrics_json(result.before);
  extra["heldout_after"] = metrics_json(result.after);
  write_sts_file(o.out_path, result.temperatures, extra);
  return result;
}

std::string format_calibration(const CalibrateResult& r) {
  std::string out;
  char line[256];
  // The source can be longer than `line` (a simulated run names its whole workload).
  out += "STS fitted on " + std::to_string(r.rows_fit) + " request-steps, evaluated on " +
         std::to_string(r.rows_heldout) + " held-out ones (" + r.source + ")\n";
  out += "pos  temperature   ECE before  after   ROC-AUC before  after   Brier before  after\n";
  for (std::size_t k = 0; k < r.temperatures.size(); ++k) {
    std::snprintf(line, sizeof line, "%3zu  %11.3f   %10.4f  %6.4f  %14.4f  %6.4f  %12.4f  %6.4f\n",
                  k + 1, r.temperatures[k], r.before[k].ece, r.after[k].ece, r.before[k].auc,
                  r.after[k].auc, r.before[k].brier, r.after[k].brier);
    out += line;
  }
  std::snprintf(line, sizeof line, "mean %11s   %10.4f  %6.4f  %14.4f  %6.4f\n", "",
                mean_ece(r.before), mean_ece(r.after), mean_auc(r.before), mean_auc(r.after));
  out += line;
  return out;
}

}  // namespace sparksim
