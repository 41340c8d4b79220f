// Formatting shared by the sweep's CSV tables, gnuplot script and HTML report.
#include "experiments/report/report_format.hpp"

#include <cstdio>

#include "common/json_file.hpp"
#include "experiments/report/sweep_report.hpp"

namespace sparksim::report {

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string fixed_text(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string load_text(const SweepConfig& c, std::size_t load) {
  return format_number(c.loads.at(load));
}

std::string load_axis_name(const SweepConfig& c) {
  return c.load_kind == LoadKind::kConcurrency ? "closed-loop users" : "arrival-rate scale";
}

std::string with_ci(const SeedStats& s, int digits) {
  if (!s.has_ci) return fixed_text(s.mean, digits);
  return fixed_text(s.mean, digits) + " [" + fixed_text(s.ci95_lo, digits) + ", " +
         fixed_text(s.ci95_hi, digits) + "]";
}

std::vector<SpeedMetric> frontier_metrics(const SweepConfig& c) {
  if (c.percentile == 50) return {SpeedMetric::kP50};
  return {SpeedMetric::kP50, SpeedMetric::kAtPercentile};
}

std::string frontier_file_stem(const SweepConfig& c, SpeedMetric m) {
  return m == SpeedMetric::kP50 ? "frontier" : "frontier_" + speed_metric_name(c, m);
}

std::string speed_description(const SweepConfig& c, SpeedMetric m) {
  if (m == SpeedMetric::kP50)
    return "p50 of requests (half of the requests are at least this fast)";
  const double share = 100.0 - c.percentile;
  return speed_metric_name(c, m) + " of requests (" + format_number(share) +
         "% of the requests are at least this fast)";
}

std::vector<std::vector<std::string>> tier_rows(const SweepConfig& c, const SweepAnalysis& a,
                                                const std::vector<TierOutcome>& outcomes,
                                                SpeedMetric m) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& o : outcomes) {
    std::vector<std::string> row{
        format_number(o.tier_tok_s_per_user),
        c.systems[o.system].label() + (c.baseline && *c.baseline == o.system ? " (baseline)" : "")};
    if (o.best) {
      const auto& g = a.aggregates[*o.best];
      row.push_back("met at load " + load_text(c, g.load));
      row.push_back(with_ci(g.throughput_tok_s_per_gpu, 1));
      row.push_back(fixed_text(speed_of(g, m).mean, 1));
    } else {
      const auto& f = a.aggregates[o.fastest];
      row.push_back(
          "cannot meet at any swept load (fastest: " + fixed_text(speed_of(f, m).mean, 1) +
          " tok/s/user at load " + load_text(c, f.load) + ")");
      row.push_back("-");
      row.push_back("-");
    }
    row.push_back(o.throughput_ratio_vs_baseline
                      ? fixed_text(*o.throughput_ratio_vs_baseline, 3) + "x"
                      : "-");
    if (o.speed_ratio_at_matched_throughput) {
      const auto& g = a.aggregates[*o.matched];
      row.push_back(fixed_text(*o.speed_ratio_at_matched_throughput, 3) + "x (load " +
                    load_text(c, g.load) + ", " + fixed_text(g.throughput_tok_s_per_gpu.mean, 1) +
                    " tok/s/GPU)");
    } else {
      // Say why there is no ratio: the baseline has no point at this tier, or this system never
      // delivers the baseline's throughput at any swept load.
      const TierOutcome* base = nullptr;
      for (const auto& b : outcomes) {
        if (c.baseline && b.system == *c.baseline && b.tier_tok_s_per_user == o.tier_tok_s_per_user)
          base = &b;
      }
      if (base == nullptr || !base->best) {
        row.push_back("- (the baseline cannot meet this tier)");
      } else {
        row.push_back("- (never reaches the baseline's " +
                      fixed_text(a.aggregates[*base->best].throughput_tok_s_per_gpu.mean, 1) +
                      " tok/s/GPU at any swept load)");
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace sparksim::report
