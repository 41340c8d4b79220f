// Predicted-against-measured comparison of a replayed step sequence.
#include "experiments/calibrate/replay_fidelity.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "common/csv_table.hpp"
#include "common/input_error.hpp"

namespace sparksim {

namespace {

struct StepRows {
  double predicted_us = 0;
  std::map<std::int64_t, std::int64_t> commits;  // decode request -> tokens committed
};

std::string bucket_of(std::int64_t tokens) {
  std::int64_t hi = 8;
  while (hi < tokens) hi *= 2;
  return "<=" + std::to_string(hi) + " tokens";
}

double pct(double predicted, double measured) {
  return 100.0 * (predicted - measured) / measured;
}

// The run's steps (run --write-steps): each step's predicted time and what each decode request
// committed in it.
std::map<std::int64_t, StepRows> read_run_steps(const std::string& steps_csv) {
  const CsvTable s = CsvTable::load(steps_csv);
  const std::size_t s_step = s.column("step"), s_dur = s.column("duration_us"),
                    s_kind = s.column("kind"), s_req = s.column("request"),
                    s_commits = s.column("commits");
  std::map<std::int64_t, StepRows> run;
  for (std::size_t r = 0; r < s.rows(); ++r) {
    StepRows& row = run[s.integer_in(r, s_step, 0, std::int64_t{1} << 50)];
    row.predicted_us = s.number(r, s_dur);
    if (s.cell(r, s_kind) == "decode") {
      row.commits[s.integer_in(r, s_req, 0, std::int64_t{1} << 62)] +=
          s.integer_in(r, s_commits, 0, 1 << 20);
    }
  }
  return run;
}

// Predicted against measured, summed over the replayed steps.
struct Comparison {
  double abs_sum = 0, worst = 0, predicted_total = 0, measured_total = 0;
  std::int64_t worst_step = -1, tokens = 0;
  std::map<std::string, std::pair<double, int>> bias;         // bucket -> (Σ signed pct, steps)
  std::map<std::int64_t, std::array<double, 3>> per_request;  // predicted, measured, tokens
  std::vector<double> noises;
};

// Each replayed step (`m`, read from `replay_csv`) against its prediction; a step the run does not
// have stops at its line.
Comparison compare_replayed_steps(const CsvTable& m, const std::string& replay_csv,
                                  const std::map<std::int64_t, StepRows>& run,
                                  const std::string& steps_csv) {
  const std::size_t m_step = m.column("step"), m_us = m.column("measured_us"),
                    m_noise = m.column("noise"), m_vtok = m.column("verify_tokens"),
                    m_ptok = m.column("prefill_tokens");
  if (m.rows() == 0) throw InputError(replay_csv, 2, "no replayed steps");
  Comparison c;
  for (std::size_t r = 0; r < m.rows(); ++r) {
    const std::int64_t id = m.integer_in(r, m_step, 0, std::int64_t{1} << 50);
    const auto it = run.find(id);
    if (it == run.end()) m.fail(r, "step " + std::to_string(id) + " is not in " + steps_csv);
    const double measured = m.number(r, m_us);
    if (!(measured > 0)) m.fail(r, "measured_us must be positive");
    const double predicted = it->second.predicted_us;
    const double e = pct(predicted, measured);
    c.abs_sum += std::fabs(e);
    if (std::fabs(e) > c.worst) {
      c.worst = std::fabs(e);
      c.worst_step = id;
    }
    auto& b = c.bias[bucket_of(m.integer_in(r, m_vtok, 0, 1 << 30) +
                               m.integer_in(r, m_ptok, 0, 1 << 30))];
    b.first += e;
    ++b.second;
    c.predicted_total += predicted;
    c.measured_total += measured;
    for (const auto& [request, n] : it->second.commits) {
      auto& acc = c.per_request[request];
      acc[0] += predicted;
      acc[1] += measured;
      acc[2] += static_cast<double>(n);
      c.tokens += n;
    }
    c.noises.push_back(m.number(r, m_noise));
  }
  return c;
}

// TPOT, predicted and measured: the mean over requests of (the time of the steps a request
// decodes in) / (its committed tokens); nothing when no request committed a token.
void add_tpot(const Comparison& c, nlohmann::ordered_json& j) {
  double tpot_predicted = 0, tpot_measured = 0;
  int counted = 0;
  for (const auto& [request, acc] : c.per_request) {
    if (acc[2] <= 0) continue;
    tpot_predicted += acc[0] / acc[2];
    tpot_measured += acc[1] / acc[2];
    ++counted;
  }
  if (counted > 0) {
    j["tpot_ms_predicted"] = tpot_predicted / counted / 1000.0;
    j["tpot_ms_measured"] = tpot_measured / counted / 1000.0;
    j["tpot_error_pct"] = pct(tpot_predicted, tpot_measured);
  }
}

}  // namespace

nlohmann::ordered_json replay_fidelity(const std::string& steps_csv,
                                       const std::string& replay_csv) {
  const std::map<std::int64_t, StepRows> run = read_run_steps(steps_csv);
  const CsvTable m = CsvTable::load(replay_csv);
  Comparison c = compare_replayed_steps(m, replay_csv, run, steps_csv);
  std::sort(c.noises.begin(), c.noises.end());
  const double n = static_cast<double>(m.rows());
  nlohmann::ordered_json j;
  j["steps_replayed"] = m.rows();
  j["steps_in_run"] = run.size();
  j["step_mape"] = c.abs_sum / n;
  j["step_worst"] = c.worst;
  j["step_worst_id"] = c.worst_step;
  j["step_target_mape"] = 3.0;
  j["step_target_met"] = c.abs_sum / n <= 3.0;
  j["replay_noise_median_iqr_over_median"] = c.noises[c.noises.size() / 2];
  for (const auto& [bucket, b] : c.bias) {
    j["bias_by_bucket_pct"][bucket] = {{"steps", b.second},
                                       {"mean_signed_pct", b.first / b.second}};
  }
  const double tput_predicted = 1e6 * static_cast<double>(c.tokens) / c.predicted_total;
  const double tput_measured = 1e6 * static_cast<double>(c.tokens) / c.measured_total;
  j["throughput_tok_s_predicted"] = tput_predicted;
  j["throughput_tok_s_measured"] = tput_measured;
  j["throughput_error_pct"] = pct(tput_predicted, tput_measured);
  add_tpot(c, j);
  j["definitions"] =
      "errors are (predicted - measured) / measured in percent; measured = median of repeats "
      "of the backend's verify + draft for the step; throughput = committed tokens / sum of "
      "step times over the replayed steps; TPOT = mean over requests of (sum of the times of "
      "the steps it decodes in) / (its committed tokens)";
  return j;
}

}  // namespace sparksim
