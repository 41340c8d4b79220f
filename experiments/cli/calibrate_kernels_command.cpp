// `sparksim calibrate kernels-fit` and `sparksim calibrate kernels-fidelity`: the fitting and
// comparing halves of the kernel calibration pipeline (the measuring half is kernels/'s
// sparksim_calibrate_kernels, which runs where the backend is). scripts/calibrate_cpu.sh chains
// sweep -> calibrate kernels-fit -> run --write-steps -> replay -> calibrate kernels-fidelity.
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/version.hpp"
#include "experiments/calibrate/measured_profile_fit.hpp"
#include "experiments/calibrate/replay_fidelity.hpp"
#include "experiments/cli/commands.hpp"
#include "profiles/profile_io.hpp"

namespace sparksim::cli {

namespace {

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

}  // namespace

void add_calibrate_kernels_commands(CLI::App& calibrate) {
  auto fit = std::make_shared<MeasuredFitInputs>();
  auto out_profile = std::make_shared<std::string>();
  auto out_report = std::make_shared<std::string>();
  CLI::App* f = calibrate.add_subcommand(
      "kernels-fit",
      "fit a measured profile (provenance \"measured\") from a sparksim_calibrate_kernels sweep");
  f->add_option("--sweep", fit->sweep_csv, "the sweep CSV")->required();
  f->add_option("--info", fit->info_path, "the sweep's info file (device, shape, host overhead)")
      ->required();
  f->add_option("--notes", fit->notes, "what this profile is for (goes into provenance.notes)");
  f->add_option("--out", *out_profile, "profile JSON to write")->required();
  f->add_option("--report", *out_report, "fit report JSON to write (held-out errors)");
  f->callback([fit, out_profile, out_report] {
    fit->date = today();
    fit->git_sha = sparksim_git_sha();
    const MeasuredFit result = fit_measured_profile(*fit);  // all input errors before writing
    write_profile(result.profile, *out_profile);
    if (!out_report->empty()) write_file_atomically(*out_report, result.report.dump(2) + "\n");
    std::printf("verify fit held out: mean %.2f%%, worst %.2f%% (%s)\n",
                result.report["verify"]["held_out"]["mean_abs_pct"].get<double>(),
                result.report["verify"]["held_out"]["worst_abs_pct"].get<double>(),
                result.report["verify"]["held_out"]["worst_label"].get<std::string>().c_str());
    std::printf("wrote %s\n", out_profile->c_str());
  });

  auto steps = std::make_shared<std::string>();
  auto replay = std::make_shared<std::string>();
  auto fit_report = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto max_mape = std::make_shared<double>(0);
  CLI::App* c = calibrate.add_subcommand(
      "kernels-fidelity",
      "compare a run's predicted step times (run --write-steps) with the same steps replayed on "
      "the backend; writes fidelity.json");
  c->add_option("--steps", *steps, "the run's steps.csv")->required();
  c->add_option("--replay", *replay, "sparksim_calibrate_kernels replay output")->required();
  c->add_option("--fit-report", *fit_report, "calibrate kernels-fit --report output, embedded");
  c->add_option("--out", *out, "fidelity JSON to write")->required();
  c->add_option("--max-step-mape", *max_mape,
                "exit 1 (after writing) when step_mape exceeds this percentage (0 = no gate)");
  c->callback([steps, replay, fit_report, out, max_mape] {
    nlohmann::ordered_json j = replay_fidelity(*steps, *replay);
    if (!fit_report->empty()) {
      std::ifstream in(*fit_report);
      if (!in) throw InputError(*fit_report, 0, "cannot open the fit report");
      j["fit"] = nlohmann::ordered_json::parse(in, nullptr, false);
      if (j["fit"].is_discarded()) throw InputError(*fit_report, 0, "not JSON");
    }
    write_file_atomically(*out, j.dump(2) + "\n");
    std::printf(
        "replayed %lld steps: step_mape %.2f%%, step_worst %.2f%%, throughput %+.2f%%, "
        "TPOT %+.2f%% (replay noise %.3f)\n",
        static_cast<long long>(j["steps_replayed"].get<std::int64_t>()),
        j["step_mape"].get<double>(), j["step_worst"].get<double>(),
        j["throughput_error_pct"].get<double>(), j.value("tpot_error_pct", 0.0),
        j["replay_noise_median_iqr_over_median"].get<double>());
    if (*max_mape > 0 && j["step_mape"].get<double>() > *max_mape) {
      std::fprintf(stderr, "calibrate kernels-fidelity: step_mape above the gate of %.1f%%\n",
                   *max_mape);
      throw CommandExit{1};
    }
  });
}

}  // namespace sparksim::cli
