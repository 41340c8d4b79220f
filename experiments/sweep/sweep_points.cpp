// Running one sweep point and formatting its points.csv row; reading rows back.
#include "experiments/sweep/sweep_points.hpp"

#include <sstream>

#include "common/csv_row.hpp"
#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "experiments/run/request_samples.hpp"

namespace sparksim {

namespace {

constexpr const char* kHeader =
    "point,drafter,gamma,policy,sps,load_kind,load,seed,"
    "requests_total,requests_completed,requests_rejected_kv,output_tokens,gpus,sim_duration_s,"
    "throughput_tok_s,throughput_tok_s_per_gpu,request_throughput_req_s,running_requests_mean,"
    "tok_s_per_user_mean,tok_s_per_user_p10,tok_s_per_user_p50,tok_s_per_user_p90,"
    "tok_s_per_user_p99,tok_s_per_user_percentile,tok_s_per_user_at_percentile,"
    "ttft_ms_p50,ttft_ms_p90,ttft_ms_p99,tpot_ms_p50,tpot_ms_p99,e2e_s_p50,e2e_s_p99,"
    "queue_ms_p50,queue_ms_p99,itl_step_ms_p50,itl_step_ms_p99,"
    "tau_mean,verify_tokens_per_request_step_mean,rejected_draft_frac,steps,request_steps,"
    "preemptions,kv_peak_reserved_tokens\n";

constexpr int kDigits = 6;

// Σ over the per-second bins of ∫running dt, divided by the simulated duration: the time-average
// number of requests holding KV (the concurrency the engine actually saw).
double mean_running(const std::string& timeseries_csv, double duration_s) {
  if (!(duration_s > 0)) return 0.0;
  const CsvTable t = CsvTable::parse(timeseries_csv, "timeseries.csv");
  const std::size_t col = t.column("running_requests_mean");
  double area = 0;
  for (std::size_t r = 0; r < t.rows(); ++r) area += t.number(r, col);
  return area / duration_s;
}

}  // namespace

std::string points_csv_header() {
  return kHeader;
}

std::string run_sweep_point(const SweepConfig& config, const SweepPoint& point,
                            const RunOptionsAdjuster& adjust) {
  RunOptions options = point_run_options(config, point);
  if (adjust) adjust(options);
  const RunSetup setup = prepare_run(options);
  // Per-request rows are needed only for a percentile the summary does not carry; formatting
  // them costs time, so they are skipped otherwise.
  const double q = config.percentile;
  const bool summary_has_q = q == 10 || q == 50 || q == 90 || q == 99;
  std::ostringstream requests;
  const RunOutcome outcome = execute_run(setup, summary_has_q ? nullptr : &requests);
  const auto& s = outcome.summary;
  const auto num = [&](const char* key) { return s.at(key).get<double>(); };
  const auto count = [&](const char* key) { return s.at(key).get<std::int64_t>(); };
  const auto dist = [&](const char* key, const char* stat) {
    return s.at(key).at(stat).get<double>();
  };

  double at_q = 0;
  if (summary_has_q) {
    // Appended, not `"p" + ...`: GCC 12 warns falsely (-Wrestrict) on literal + temporary string.
    std::string key = "p";
    key += format_number(q);
    at_q = dist("tok_s_per_user", key.c_str());
  } else {
    RequestSamples samples;
    samples.add_requests_csv(requests.str());
    at_q = sample_percentile(samples.tok_s_per_user, q);
  }

  const SweepSystem& system = config.systems.at(point.system);
  std::string row;
  CsvRow r(row);
  r.integer(static_cast<std::int64_t>(point.index))
      .text(system.drafter)
      .integer(system.gamma)
      .text(csv_cell(system.policy))
      .text(system.sps)
      .text(load_kind_name(config.load_kind))
      .text(format_number(config.loads.at(point.load)))
      .integer(static_cast<std::int64_t>(config.seeds.at(point.seed)))
      .integer(count("requests_total"))
      .integer(count("requests_completed"))
      .integer(count("requests_rejected_kv"))
      .integer(count("output_tokens"))
      .integer(count("gpus"))
      .fixed(num("sim_duration_s"), kDigits)
      .fixed(num("throughput_tok_s"), kDigits)
      .fixed(num("throughput_tok_s_per_gpu"), kDigits)
      .fixed(num("request_throughput_req_s"), kDigits)
      .fixed(mean_running(outcome.timeseries_csv, num("sim_duration_s")), kDigits)
      .fixed(dist("tok_s_per_user", "mean"), kDigits)
      .fixed(dist("tok_s_per_user", "p10"), kDigits)
      .fixed(dist("tok_s_per_user", "p50"), kDigits)
      .fixed(dist("tok_s_per_user", "p90"), kDigits)
      .fixed(dist("tok_s_per_user", "p99"), kDigits)
      .text(format_number(q))
      .fixed(at_q, kDigits)
      .fixed(dist("ttft_ms", "p50"), kDigits)
      .fixed(dist("ttft_ms", "p90"), kDigits)
      .fixed(dist("ttft_ms", "p99"), kDigits)
      .fixed(dist("tpot_ms", "p50"), kDigits)
      .fixed(dist("tpot_ms", "p99"), kDigits)
      .fixed(dist("e2e_s", "p50"), kDigits)
      .fixed(dist("e2e_s", "p99"), kDigits)
      .fixed(dist("queue_ms", "p50"), kDigits)
      .fixed(dist("queue_ms", "p99"), kDigits)
      .fixed(dist("itl_step_ms", "p50"), kDigits)
      .fixed(dist("itl_step_ms", "p99"), kDigits)
      .fixed(num("tau_mean"), kDigits)
      .fixed(num("verify_tokens_per_request_step_mean"), kDigits)
      .fixed(num("rejected_draft_frac"), kDigits)
      .integer(count("steps"))
      .integer(count("request_steps"))
      .integer(count("preemptions"))
      .integer(count("kv_peak_reserved_tokens"))
      .end();
  return row;
}

std::vector<PointRecord> parse_points_csv(const std::string& text, const std::string& path) {
  const std::string header = points_csv_header();
  if (text.compare(0, header.size(), header) != 0) {
    throw InputError(path, 1,
                     "not a points.csv of this sparksim version (its header differs from: " +
                         header.substr(0, header.size() - 1) + ")");
  }
  const CsvTable t = CsvTable::parse(text, path);
  const std::size_t c_point = t.column("point"), c_drafter = t.column("drafter"),
                    c_policy = t.column("policy"), c_sps = t.column("sps"),
                    c_load = t.column("load"), c_seed = t.column("seed"),
                    c_tput = t.column("throughput_tok_s_per_gpu"),
                    c_p50 = t.column("tok_s_per_user_p50"),
                    c_pq = t.column("tok_s_per_user_at_percentile"),
                    c_run = t.column("running_requests_mean"), c_tau = t.column("tau_mean"),
                    c_vb = t.column("verify_tokens_per_request_step_mean"),
                    c_ttft = t.column("ttft_ms_p99");
  std::vector<PointRecord> out;
  out.reserve(t.rows());
  for (std::size_t r = 0; r < t.rows(); ++r) {
    PointRecord p;
    const std::int64_t index = t.integer(r, c_point);
    if (index < 0) throw InputError(path, t.line_of(r), "point is negative");
    p.point = static_cast<std::size_t>(index);
    p.drafter = t.cell(r, c_drafter);
    p.policy = t.cell(r, c_policy);
    p.sps = t.cell(r, c_sps);
    p.load = t.number(r, c_load);
    p.seed = static_cast<std::uint64_t>(t.integer(r, c_seed));
    p.throughput_tok_s_per_gpu = t.number(r, c_tput);
    p.tok_s_per_user_p50 = t.number(r, c_p50);
    p.tok_s_per_user_at_percentile = t.number(r, c_pq);
    p.running_requests_mean = t.number(r, c_run);
    p.tau_mean = t.number(r, c_tau);
    p.verify_tokens_per_request_step_mean = t.number(r, c_vb);
    p.ttft_ms_p99 = t.number(r, c_ttft);
    p.raw_row = std::string(t.raw_row(r));
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace sparksim
