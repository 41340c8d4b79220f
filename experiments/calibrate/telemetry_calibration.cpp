// Fit, build, then check by simulation. The check runs the real engine (run_experiment) in closed
// loop with the MTP-1 baseline on mixed traffic; prompts are short and prefilled on the separate
// prefill lane, so the decode GPU's throughput is what is compared (the paper's curves are decode
// throughput per GPU; prefill is disaggregated).
#include "experiments/calibrate/telemetry_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "experiments/run/run_experiment.hpp"
#include "profiles/moe/moe_step_model.hpp"
#include "profiles/profile_io.hpp"
#include "sim/acceptance/published_curves.hpp"

namespace sparksim {

namespace {

// Mean of the per-second throughput over [25%, 95%) of the closed loop's duration: the loop starts
// with every user arriving at once and drains after the duration, neither of which is the
// steady state a deployment's curve describes.
double steady_state_tok_s(const std::string& timeseries_csv, double duration_s) {
  std::istringstream in(timeseries_csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::istringstream h(line);
    for (std::string cell; std::getline(h, cell, ',');) header.push_back(cell);
  }
  const auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) throw std::logic_error("timeseries has no column " + name);
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t time_col = column("time_s"), tput_col = column("throughput_tok_s");
  double sum = 0;
  int bins = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    const double t = std::stod(cells[time_col]);
    if (t < 0.25 * duration_s || t >= 0.95 * duration_s) continue;
    sum += std::stod(cells[tput_col]);
    ++bins;
  }
  if (bins == 0) throw std::logic_error("telemetry check: no steady-state bins");
  return sum / bins;
}

}  // namespace

double mtp1_tokens_per_step() {
  double sum = 0;
  for (int d = 0; d < kDomainCount; ++d) sum += mtp1_acceptance(static_cast<Domain>(d));
  return 1.0 + sum / kDomainCount;
}

double TelemetryCalibration::worst_abs_error() const {
  double worst = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (fit.fitted[i]) worst = std::max(worst, std::abs(rows[i].relative_error));
  }
  return worst;
}

std::string TelemetryCalibration::report_csv() const {
  std::string out =
      "curve,fitted,concurrency_per_gpu,telemetry_tok_s_per_gpu,telemetry_tok_s_per_user,"
      "fitted_step_ms,telemetry_step_ms,simulated_users,simulated_tok_s_per_user,"
      "simulated_tok_s_per_gpu,relative_error\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const TelemetryCheckRow& r = rows[i];
    char line[256];
    std::snprintf(line, sizeof line, "%s,%s,%.3f,%.1f,%.3f,%.4f,%.4f,%lld,%.3f,%.1f,%.4f\n",
                  r.point.curve.c_str(), fit.fitted[i] ? "yes" : "no", r.point.concurrency_per_gpu,
                  r.point.tok_s_per_gpu, r.point.tok_s_per_user(), fit.fitted_ms[i], fit.step_ms[i],
                  static_cast<long long>(r.simulated_users), r.simulated_tok_s_per_user,
                  r.simulated_tok_s_per_gpu, r.relative_error);
    out += line;
  }
  return out;
}

TelemetryCalibration calibrate_to_telemetry(const TelemetryCurve& curve,
                                            const TelemetryCalibrationOptions& o) {
  const MoeTarget& target = moe_target(curve.target);
  const MoeGpu& gpu = moe_gpu(o.reference_gpu);
  const std::string topology_name =
      !o.reference_topology.empty()
          ? o.reference_topology
          : (target.name == "deepseek-v4-flash" ? std::string("dep8") : std::string("dep32"));
  const ReplicaTopology topology = parse_topology(
      topology_name, target, parse_expert_format(o.expert_format), 8, "--reference-topology");
  if (topology.attention != AttentionParallel::kData) {
    throw InputError("--reference-topology: " + topology_name +
                     " is tensor-parallel; telemetry profiles are per GPU: use dep<N>");
  }
  if (!(o.duration_s >= 10 && o.duration_s <= 3600)) {
    throw InputError("--duration-s: must be in [10, 3600] simulated seconds per point");
  }
  TelemetryCalibration cal;
  const Profile reference = make_moe_profile(target, gpu, topology, {}, o.date, o.git_sha);
  cal.fit = fit_telemetry(curve, mtp1_tokens_per_step(), o.curves);
  cal.profile = make_telemetry_profile(curve, cal.fit, reference, o.date, o.git_sha);

  // The run driver loads profiles from files: a private temporary one, removed afterwards.
  const std::filesystem::path scratch =
      std::filesystem::temp_directory_path() /
      ("sparksim-telemetry-" + std::to_string(std::hash<std::string>{}(curve.path + o.date)) + "-" +
       std::to_string(o.seed) + ".json");
  write_profile(cal.profile, scratch.string());
  struct Remove {
    std::filesystem::path p;
    ~Remove() {
      std::error_code ec;
      std::filesystem::remove(p, ec);
    }
  } remove{scratch};

  for (const TelemetryPoint& point : curve.points) {
    RunOptions r;
    r.profile_path = scratch.string();
    r.closed_loop_users = std::max<std::int64_t>(1, std::llround(point.concurrency_per_gpu));
    r.synthetic =
        "rate=1,prompt=fixed:128,output=lognormal:800:0.5,domain=math:1/code:1/chat:1,"
        "duration_s=" +
        format_number(o.duration_s);
    r.drafter = "mtp1";
    r.policy = "static:k=1";
    r.prefill = "separate";
    r.max_running = std::max<std::int64_t>(256, r.closed_loop_users);
    r.max_batch_tokens = std::max<std::int64_t>(8192, 4 * r.closed_loop_users);
    r.seed = o.seed;
    const RunOutcome outcome = execute_run(prepare_run(r), nullptr);
    TelemetryCheckRow row;
    row.point = point;
    row.simulated_users = r.closed_loop_users;
    // Decode throughput of the one decode GPU in steady state, per user in flight.
    const double decode_tok_s = steady_state_tok_s(outcome.timeseries_csv, o.duration_s);
    row.simulated_tok_s_per_user = decode_tok_s / static_cast<double>(r.closed_loop_users);
    row.simulated_tok_s_per_gpu = row.simulated_tok_s_per_user * point.concurrency_per_gpu;
    row.relative_error = row.simulated_tok_s_per_gpu / point.tok_s_per_gpu - 1.0;
    cal.rows.push_back(row);
  }
  return cal;
}

}  // namespace sparksim
