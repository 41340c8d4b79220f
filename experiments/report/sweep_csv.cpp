// The sweep's CSV tables and the stdout tier table, from the seed aggregates.
#include "experiments/report/sweep_csv.hpp"

#include <algorithm>

#include "common/csv_row.hpp"
#include "common/csv_table.hpp"
#include "common/json_file.hpp"
#include "experiments/report/report_format.hpp"
#include "experiments/report/sweep_report.hpp"

namespace sparksim {

namespace {

using namespace report;  // the formatting every sweep output shares

void ci_cells(CsvRow& r, const SeedStats& s) {
  r.fixed(s.mean, report::kCsvDigits);
  if (s.has_ci) {
    r.fixed(s.ci95_lo, report::kCsvDigits).fixed(s.ci95_hi, report::kCsvDigits);
  } else {
    r.text("").text("");
  }
}

bool on_frontier(const std::vector<std::size_t>& frontier, std::size_t index) {
  return std::find(frontier.begin(), frontier.end(), index) != frontier.end();
}

}  // namespace

std::string aggregates_csv(const SweepConfig& c, const SweepAnalysis& a) {
  std::string out =
      "drafter,policy,sps,load_kind,load,seeds,tok_s_per_user_percentile,"
      "throughput_tok_s_per_gpu,throughput_tok_s_per_gpu_ci95_lo,throughput_tok_s_per_gpu_ci95_hi,"
      "tok_s_per_user_p50,tok_s_per_user_p50_ci95_lo,tok_s_per_user_p50_ci95_hi,"
      "tok_s_per_user_at_percentile,tok_s_per_user_at_percentile_ci95_lo,"
      "tok_s_per_user_at_percentile_ci95_hi,"
      "running_requests_mean,running_requests_mean_ci95_lo,running_requests_mean_ci95_hi,"
      "tau_mean,tau_mean_ci95_lo,tau_mean_ci95_hi,"
      "verify_tokens_per_request_step_mean,verify_tokens_per_request_step_mean_ci95_lo,"
      "verify_tokens_per_request_step_mean_ci95_hi,"
      "ttft_ms_p99,ttft_ms_p99_ci95_lo,ttft_ms_p99_ci95_hi,on_frontier_p50,"
      "on_frontier_at_percentile\n";
  for (std::size_t i = 0; i < a.aggregates.size(); ++i) {
    const auto& g = a.aggregates[i];
    CsvRow r(out);
    r.text(c.systems[g.system].drafter)
        .text(csv_cell(c.systems[g.system].policy))
        .text(c.systems[g.system].sps)
        .text(load_kind_name(c.load_kind))
        .text(load_text(c, g.load))
        .integer(g.throughput_tok_s_per_gpu.n)
        .text(format_number(c.percentile));
    ci_cells(r, g.throughput_tok_s_per_gpu);
    ci_cells(r, g.tok_s_per_user_p50);
    ci_cells(r, g.tok_s_per_user_at_percentile);
    ci_cells(r, g.running_requests_mean);
    ci_cells(r, g.tau_mean);
    ci_cells(r, g.verify_tokens_per_request_step_mean);
    ci_cells(r, g.ttft_ms_p99);
    r.integer(on_frontier(a.frontier_p50[g.system], i) ? 1 : 0)
        .integer(on_frontier(a.frontier_at_percentile[g.system], i) ? 1 : 0)
        .end();
  }
  return out;
}

std::string frontier_csv(const SweepConfig& c, const SweepAnalysis& a) {
  std::string out =
      "frontier,drafter,policy,sps,load_kind,load,seeds,tok_s_per_user,tok_s_per_user_ci95_lo,"
      "tok_s_per_user_ci95_hi,throughput_tok_s_per_gpu,throughput_tok_s_per_gpu_ci95_lo,"
      "throughput_tok_s_per_gpu_ci95_hi\n";
  for (SpeedMetric m : frontier_metrics(c)) {
    for (std::size_t s = 0; s < c.systems.size(); ++s) {
      for (std::size_t i : a.frontier(m)[s]) {
        const auto& g = a.aggregates[i];
        CsvRow r(out);
        r.text(speed_metric_name(c, m))
            .text(c.systems[s].drafter)
            .text(csv_cell(c.systems[s].policy))
            .text(c.systems[s].sps)
            .text(load_kind_name(c.load_kind))
            .text(load_text(c, g.load))
            .integer(g.throughput_tok_s_per_gpu.n);
        ci_cells(r, speed_of(g, m));
        ci_cells(r, g.throughput_tok_s_per_gpu);
        r.end();
      }
    }
  }
  return out;
}

std::string tiers_csv(const SweepConfig& c, const SweepAnalysis& a,
                      const std::vector<TierOutcome>& outcomes, SpeedMetric m) {
  std::string out =
      "tier_tok_s_per_user,speed_metric,drafter,policy,is_baseline,profile_source,status,load_kind,"
      "load,seeds,throughput_tok_s_per_gpu,throughput_tok_s_per_gpu_ci95_lo,"
      "throughput_tok_s_per_gpu_ci95_hi,tok_s_per_user,fastest_load,fastest_tok_s_per_user,"
      "throughput_ratio_vs_baseline,matched_load,matched_throughput_tok_s_per_gpu,"
      "matched_tok_s_per_user,speed_ratio_at_matched_throughput\n";
  for (const auto& o : outcomes) {
    const SweepSystem& s = c.systems[o.system];
    CsvRow r(out);
    r.text(format_number(o.tier_tok_s_per_user))
        .text(speed_metric_name(c, m))
        .text(s.drafter)
        .text(csv_cell(s.policy))
        .integer(c.baseline && *c.baseline == o.system ? 1 : 0)
        .text(c.profile_source)
        .text(o.best ? "met" : "unmeetable")
        .text(load_kind_name(c.load_kind));
    if (o.best) {
      const auto& g = a.aggregates[*o.best];
      r.text(load_text(c, g.load)).integer(g.throughput_tok_s_per_gpu.n);
      ci_cells(r, g.throughput_tok_s_per_gpu);
      r.fixed(speed_of(g, m).mean, report::kCsvDigits);
    } else {
      r.text("").integer(static_cast<std::int64_t>(c.seeds.size()));
      r.text("").text("").text("").text("");
    }
    const auto& f = a.aggregates[o.fastest];
    r.text(load_text(c, f.load)).fixed(speed_of(f, m).mean, report::kCsvDigits);
    if (o.throughput_ratio_vs_baseline) {
      r.fixed(*o.throughput_ratio_vs_baseline, report::kCsvDigits);
    } else {
      r.text("");
    }
    if (o.matched) {
      const auto& g = a.aggregates[*o.matched];
      r.text(load_text(c, g.load))
          .fixed(g.throughput_tok_s_per_gpu.mean, report::kCsvDigits)
          .fixed(speed_of(g, m).mean, report::kCsvDigits);
    } else {
      r.text("").text("").text("");
    }
    if (o.speed_ratio_at_matched_throughput) {
      r.fixed(*o.speed_ratio_at_matched_throughput, report::kCsvDigits);
    } else {
      r.text("");
    }
    r.end();
  }
  return out;
}

std::string tiers_table(const SweepConfig& c, const SweepAnalysis& a,
                        const std::vector<TierOutcome>& outcomes, SpeedMetric m) {
  const auto rows = tier_rows(c, a, outcomes, m);
  const std::vector<std::string> header{"tier",
                                        "system",
                                        "status",
                                        "tok/s/GPU",
                                        "tok/s/user",
                                        "vs baseline",
                                        "speed vs baseline at matched throughput"};
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      l += cells[i];
      if (i + 1 < cells.size()) l += std::string(width[i] - cells[i].size() + 2, ' ');
    }
    out += l + "\n";
  };
  line(header);
  for (const auto& row : rows) line(row);
  return out;
}

}  // namespace sparksim
