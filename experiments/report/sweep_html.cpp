// The sweep's HTML report: everything inline (images as base64 data: URIs, the CSS from
// report.css), no network, so the one file can be mailed or archived.
#include "experiments/report/sweep_html.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "common/base64.hpp"
#include "common/text_file.hpp"
#include "experiments/report/report_css.hpp"  // generated from report.css (CMakeLists.txt)
#include "experiments/report/report_format.hpp"
#include "experiments/report/sweep_report.hpp"

namespace sparksim {

namespace {

using namespace report;  // the formatting every sweep output shares

std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows,
                       const std::string& css_class = "") {
  std::string h = "<table" + (css_class.empty() ? "" : " class=\"" + css_class + "\"") + ">\n<tr>";
  for (const auto& cell : header) h += "<th>" + html_escape(cell) + "</th>";
  h += "</tr>\n";
  for (const auto& row : rows) {
    h += "<tr>";
    for (const auto& cell : row) h += "<td>" + html_escape(cell) + "</td>";
    h += "</tr>\n";
  }
  return h + "</table>\n";
}

std::string image_tag(const std::filesystem::path& dir, const std::string& stem,
                      const std::string& alt) {
  const std::string png = read_file_bytes(dir / (stem + ".png"));
  return "<figure><img src=\"data:image/png;base64," + base64(png) + "\" alt=\"" +
         html_escape(alt) + "\" width=\"1100\" height=\"720\"><figcaption>" + html_escape(alt) +
         " (<a href=\"" + stem + ".svg\">" + stem + ".svg</a>)</figcaption></figure>\n";
}

// The document's head and its title, the profile line (saying what its step times are) and the
// config's description.
std::string head_and_profile(const SweepConfig& c) {
  const bool analytic = c.profile_source == "analytic";
  const bool measured_db = c.profile_source == "measured-db";
  const bool telemetry = c.profile_source == "telemetry";
  const std::string kind = analytic      ? " (ANALYTIC profile)"
                           : measured_db ? " (MEASURED-DB profile)"
                           : telemetry   ? " (TELEMETRY-fitted profile)"
                                         : "";
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<title>" + html_escape(c.title + kind) + "</title>\n";
  h += "<style>\n";
  h += kReportCss;
  h += "</style>\n</head>\n<body>\n";
  h += "<h1>" + html_escape(c.title) + "</h1>\n";
  h += "<p class=\"profile" + std::string(analytic ? " analytic" : "") +
       "\">Profile: " + html_escape(c.profile_label) +
       (analytic      ? ". Every number on this page is simulated on this roofline estimate, not "
                        "measured on a GPU."
        : measured_db ? ". Its step times are composed from per-kernel latencies that a public "
                        "database measured on this GPU (named above); sparksim measured nothing."
        : telemetry   ? ". Its step times are fitted so that a deployed baseline's measured "
                        "curve is reproduced; no kernel was timed."
                      : ".") +
       "</p>\n";
  if (!c.about.empty()) h += "<p>" + html_escape(c.about) + "</p>\n";
  return h;
}

// The workload as one line: the trace (and how many rows) or the synthetic spec.
std::string workload_text(const SweepConfig& c) {
  return !c.trace_path.empty()
             ? "trace " + c.trace_path +
                   (c.max_requests > 0 ? " (first " + std::to_string(c.max_requests) + " rows)"
                                       : "")
             : (c.load_kind == LoadKind::kConcurrency ? "closed-loop users, lengths from " : "") +
                   std::string("synthetic ") + c.synthetic;
}

std::string setup_section(const SweepConfig& c, const std::string& producer) {
  std::string systems;
  for (std::size_t s = 0; s < c.systems.size(); ++s) {
    systems += (s ? "; " : "") + c.systems[s].label() +
               (c.baseline && *c.baseline == s ? " (baseline)" : "");
  }
  std::string loads;
  for (std::size_t l = 0; l < c.loads.size(); ++l) loads += (l ? ", " : "") + load_text(c, l);
  std::string seeds;
  for (std::size_t k = 0; k < c.seeds.size(); ++k) {
    seeds += (k ? ", " : "") + std::to_string(c.seeds[k]);
  }
  return "<h2>Setup</h2>\n" +
         html_table(
             {"field", "value"},
             {{"workload", workload_text(c)},
              {"profile", c.profile_path},
              {"load (" + load_axis_name(c) + ")", loads},
              {"seeds", seeds},
              {"systems (drafter + policy)", systems},
              {"acceptance model", c.acceptance},
              {"engine", "max_running " + std::to_string(c.max_running) + ", max_batch_tokens " +
                             std::to_string(c.max_batch_tokens) + ", prefill " + c.prefill +
                             ", SPS belief " + c.sps + " (systems marked '(sps X)' use X)"},
              {"points simulated", std::to_string(c.point_count())},
              {"sparksim", producer}});
}

// Speed metric m's Pareto frontiers: the plot and the frontier points of every system.
std::string frontier_section(const SweepConfig& c, const SweepAnalysis& a,
                             const std::filesystem::path& dir, bool plots, SpeedMetric m) {
  const std::string name = speed_metric_name(c, m);
  std::string h = "<h2>Throughput vs per-user speed (" + html_escape(name) + ")</h2>\n";
  h += "<p>Per-user speed is tok/s/user (1 / TPOT) at the " + html_escape(speed_description(c, m)) +
       "; throughput is output tokens per second per GPU. Lines join each system's Pareto "
       "frontier over the swept loads; hollow markers are its other loads.</p>\n";
  if (plots) {
    h += image_tag(dir, frontier_file_stem(c, m),
                   "Pareto frontiers at " + name + ", " + c.profile_label);
  }
  std::vector<std::vector<std::string>> rows;
  for (std::size_t s = 0; s < c.systems.size(); ++s) {
    for (std::size_t i : a.frontier(m)[s]) {
      const auto& g = a.aggregates[i];
      rows.push_back({c.systems[s].label(), load_text(c, g.load),
                      std::to_string(g.throughput_tok_s_per_gpu.n), with_ci(speed_of(g, m), 1),
                      with_ci(g.throughput_tok_s_per_gpu, 1)});
    }
  }
  h += html_table(
      {"system", "load", "seeds", "tok/s/user " + name + " [95% CI]", "tok/s per GPU [95% CI]"},
      rows, "frontier");
  return h;
}

// Speed metric m's interactivity tiers against the baseline (the config has both).
std::string tier_section(const SweepConfig& c, const SweepAnalysis& a, SpeedMetric m) {
  const std::string name = speed_metric_name(c, m);
  const auto outcomes = evaluate_tiers(c, a, c.tiers_tok_s_per_user, *c.baseline, m);
  std::string h = "<h2>Interactivity tiers (" + html_escape(name) + ")</h2>\n";
  h += "<p>For each tier, the highest simulated throughput per GPU whose " + html_escape(name) +
       " per-user speed (seed mean) reaches the tier, its ratio to the baseline " +
       html_escape(c.systems[*c.baseline].label()) +
       ", and the per-user speed ratio at matched throughput (the fastest load serving at "
       "least the baseline's throughput at that tier, within 0.5%). Only swept loads count; "
       "no interpolation.</p>\n";
  h += html_table(
      {"tier tok/s/user", "system", "status", "tok/s per GPU [95% CI]", "tok/s/user " + name,
       "throughput vs baseline", "speed vs baseline at matched throughput"},
      tier_rows(c, a, outcomes, m), "tiers");
  return h;
}

// The tiers at the config's percentile under every acceptance scenario: each system's best
// throughput per GPU meeting the tier and its ratio to the baseline under each, then the band
// (lowest to highest ratio; "unmet under k" when some scenario misses the tier).
std::string scenario_section(const SweepConfig& c, const ScenarioAnalyses& s) {
  if (s.names.empty()) {
    return s.why_none.empty()
               ? ""
               : "<h2>Acceptance scenarios</h2>\n<p>" + html_escape(s.why_none) + "</p>\n";
  }
  const SpeedMetric m = SpeedMetric::kAtPercentile;
  const std::string metric = speed_metric_name(c, m);
  std::string h = "<h2>Acceptance scenarios</h2>\n";
  h += "<p>No acceptance is published for this drafter on this target, so the whole sweep was "
       "also run under every named acceptance scenario (declared priors with their sources, "
       "docs/moe.md). Everything above is under the default, <b>" +
       html_escape(s.names.front()) + "</b>. Per tier (" + html_escape(metric) +
       " per-user speed): each system's best throughput per GPU meeting it and its ratio to the "
       "baseline under each scenario, then the band of the ratio over the scenarios.</p>\n";
  std::vector<std::vector<TierOutcome>> outcomes;
  for (const SweepAnalysis& a : s.analyses) {
    outcomes.push_back(evaluate_tiers(c, a, c.tiers_tok_s_per_user, *c.baseline, m));
  }
  std::vector<std::string> header = {"tier tok/s/user", "system"};
  for (std::size_t k = 0; k < s.names.size(); ++k) {
    const std::string name = s.names[k] + (k == 0 ? " (default)" : "");
    header.push_back("tok/s per GPU, " + name);
    header.push_back("vs baseline, " + name);
  }
  header.push_back("vs baseline band");
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < outcomes.front().size(); ++i) {
    const TierOutcome& first = outcomes.front()[i];
    if (first.system == *c.baseline) continue;
    std::vector<std::string> row = {format_number(first.tier_tok_s_per_user),
                                    c.systems[first.system].label()};
    std::optional<double> low, high;
    int unmet = 0;
    for (std::size_t k = 0; k < outcomes.size(); ++k) {
      const TierOutcome& o = outcomes[k][i];
      row.push_back(
          o.best ? fixed_text(s.analyses[k].aggregates[*o.best].throughput_tok_s_per_gpu.mean, 1)
                 : "unmet");
      if (o.throughput_ratio_vs_baseline) {
        const double r = *o.throughput_ratio_vs_baseline;
        row.push_back(fixed_text(r, 3));
        low = low ? std::min(*low, r) : r;
        high = high ? std::max(*high, r) : r;
      } else {
        row.push_back("unmet");
        ++unmet;
      }
    }
    std::string band = low ? fixed_text(*low, 3) + " to " + fixed_text(*high, 3) : "";
    if (unmet > 0) {
      band += (band.empty() ? "" : "; ") + std::string("unmet under ") + std::to_string(unmet);
    }
    row.push_back(band);
    rows.push_back(std::move(row));
  }
  h += html_table(header, rows, "scenarios");
  h += "<p>Each other scenario's points: ";
  for (std::size_t k = 1; k < s.names.size(); ++k) {
    h += "<a href=\"scenarios/" + html_escape(s.names[k]) + "/points.csv\">scenarios/" +
         html_escape(s.names[k]) + "/points.csv</a> ";
  }
  return h + "</p>\n";
}

std::string verify_budget_section(const SweepConfig& c, const std::filesystem::path& dir,
                                  bool plots) {
  std::string h = "<h2>Verify budget and tau vs concurrency</h2>\n";
  h += "<p>Concurrency is the time-average number of requests holding KV cache.</p>\n";
  if (plots) {
    h += image_tag(dir, "verify_budget", "Verify budget vs concurrency, " + c.profile_label);
    h += image_tag(dir, "tau", "tau vs concurrency, " + c.profile_label);
  }
  return h;
}

std::string every_load_section(const SweepConfig& c, const SweepAnalysis& a) {
  std::string h = "<h2>Every load (mean over seeds, 95% CI)</h2>\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : a.aggregates) {
    rows.push_back({c.systems[g.system].label(), load_text(c, g.load),
                    with_ci(g.running_requests_mean, 1), with_ci(g.throughput_tok_s_per_gpu, 1),
                    with_ci(g.tok_s_per_user_p50, 1), with_ci(g.tok_s_per_user_at_percentile, 1),
                    with_ci(g.tau_mean, 3), with_ci(g.verify_tokens_per_request_step_mean, 3),
                    with_ci(g.ttft_ms_p99, 1)});
  }
  h += html_table({"system", "load", "concurrency", "tok/s per GPU", "tok/s/user p50",
                   "tok/s/user " + speed_metric_name(c, SpeedMetric::kAtPercentile), "tau",
                   "verify budget", "TTFT p99 ms"},
                  rows, "aggregates");
  return h;
}

// The data files beside the report, and the end of the document.
std::string files_and_end(bool plots) {
  std::string h = "<h2>Files</h2>\n<p>";
  for (const char* f : {"points.csv", "aggregates.csv", "frontier.csv", "sweep.json"}) {
    h += std::string("<a href=\"") + f + "\">" + f + "</a> ";
  }
  h += "<br>Rerun any point by hand: <code>sparksim run</code> with the point's drafter, policy, "
       "load and seed (sweep.json has the rest).</p>\n";
  if (!plots) h += "<p>Plots were not drawn (--no-plots).</p>\n";
  h += "</body>\n</html>\n";
  return h;
}

}  // namespace

std::string sweep_report_html(const SweepConfig& c, const SweepAnalysis& a,
                              const ScenarioAnalyses& scenarios, const std::filesystem::path& dir,
                              bool plots, const std::string& producer) {
  std::string h = head_and_profile(c);
  h += setup_section(c, producer);
  for (SpeedMetric m : frontier_metrics(c)) h += frontier_section(c, a, dir, plots, m);
  if (!c.tiers_tok_s_per_user.empty() && c.baseline) {
    for (SpeedMetric m : frontier_metrics(c)) h += tier_section(c, a, m);
    h += scenario_section(c, scenarios);
  }
  h += verify_budget_section(c, dir, plots);
  h += every_load_section(c, a);
  h += files_and_end(plots);
  return h;
}

}  // namespace sparksim
