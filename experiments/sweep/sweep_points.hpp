// One sweep point = one `sparksim run` (the options point_run_options gives), reduced to one tidy
// row of points.csv: the point's configuration fields, then its metrics, all from the simulated
// run (its summary, per-request rows and time series). Rows are a pure function of the config and
// the point, so they are the same whichever worker, shard or machine computes them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/csv_table.hpp"
#include "experiments/sweep/sweep_config.hpp"

namespace sparksim {

// points.csv's header line (with its newline). Columns, in order:
//   point, drafter, gamma, policy, load_kind, load, seed          (configuration)
//   requests_total ... kv_peak_reserved_tokens                     (metrics; README lists them)
std::string points_csv_header();

// Simulates `point` and returns its row (with its newline). Throws what prepare_run/execute_run
// throw (the config was validated, so an InputError here means an input changed on disk).
// `adjust`, when set, edits the point's run options before they are prepared (sparksim
// sensitivity: a scaled profile, a host overhead); the row records the point as configured.
using RunOptionsAdjuster = std::function<void(RunOptions&)>;
std::string run_sweep_point(const SweepConfig& config, const SweepPoint& point,
                            const RunOptionsAdjuster& adjust = {});

// points.csv read back, one entry per row, in file order; the fields the reports use.
struct PointRecord {
  std::size_t point = 0;
  std::string drafter;
  std::string policy;
  std::string sps;  // the SPS belief the policy scheduled against
  double load = 0;
  std::uint64_t seed = 0;
  double throughput_tok_s_per_gpu = 0;
  double tok_s_per_user_p50 = 0;
  double tok_s_per_user_at_percentile = 0;
  double running_requests_mean = 0;
  double tau_mean = 0;
  double verify_tokens_per_request_step_mean = 0;
  double ttft_ms_p99 = 0;
  std::string raw_row;  // the row's text, for byte-exact merging
};

// Parses points.csv text (as written by a sweep or a shard); throws InputError(`path:line: ...`)
// for a header other than points_csv_header()'s or a malformed row.
std::vector<PointRecord> parse_points_csv(const std::string& text, const std::string& path);

}  // namespace sparksim
