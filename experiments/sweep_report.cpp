// Sweep outputs: CSV tables, the gnuplot script and its images, and the self-contained HTML report.
#include "experiments/sweep_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/csv_row.hpp"
#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/version.hpp"
#include "experiments/csv_table.hpp"
#include "experiments/gnuplot.hpp"

namespace sparksim {

namespace {

constexpr int kDigits = 6;

// Distinct, colour-blind-friendly line colours (Okabe-Ito first, then Tableau); systems beyond
// them cycle with a different dash pattern.
constexpr const char* kColours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                    "#e69f00", "#56b4e9", "#8c564b", "#7f7f7f"};
constexpr std::size_t kColourCount = sizeof kColours / sizeof kColours[0];

std::string fmt(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string read_binary(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_binary(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("failed writing " + path.string());
}

std::string base64(const std::string& bytes) {
  static constexpr char kTable[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto n = (static_cast<unsigned char>(bytes[i]) << 16) |
                   (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                   static_cast<unsigned char>(bytes[i + 2]);
    out += kTable[(n >> 18) & 63];
    out += kTable[(n >> 12) & 63];
    out += kTable[(n >> 6) & 63];
    out += kTable[n & 63];
  }
  if (i < bytes.size()) {
    const bool two = i + 1 < bytes.size();
    const auto n = (static_cast<unsigned char>(bytes[i]) << 16) |
                   (two ? static_cast<unsigned char>(bytes[i + 1]) << 8 : 0);
    out += kTable[(n >> 18) & 63];
    out += kTable[(n >> 12) & 63];
    out += two ? kTable[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

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

std::string load_text(const SweepConfig& c, std::size_t load) {
  return format_number(c.loads.at(load));
}

std::string load_axis_name(const SweepConfig& c) {
  return c.load_kind == LoadKind::kConcurrency ? "closed-loop users" : "arrival-rate scale";
}

// "mean [lo, hi]" for tables; just the mean without a CI (one seed).
std::string with_ci(const SeedStats& s, int digits) {
  if (!s.has_ci) return fmt(s.mean, digits);
  return fmt(s.mean, digits) + " [" + fmt(s.ci95_lo, digits) + ", " + fmt(s.ci95_hi, digits) + "]";
}

void ci_cells(CsvRow& r, const SeedStats& s) {
  r.fixed(s.mean, kDigits);
  if (s.has_ci) {
    r.fixed(s.ci95_lo, kDigits).fixed(s.ci95_hi, kDigits);
  } else {
    r.text("").text("");
  }
}

bool on_frontier(const std::vector<std::size_t>& frontier, std::size_t index) {
  return std::find(frontier.begin(), frontier.end(), index) != frontier.end();
}

bool percentile_is_p50(const SweepConfig& c) {
  return c.percentile == 50;
}

std::vector<SpeedMetric> frontier_metrics(const SweepConfig& c) {
  if (percentile_is_p50(c)) return {SpeedMetric::kP50};
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

// ----- gnuplot -------------------------------------------------------------------------------

std::string colour_of(std::size_t system) {
  return kColours[system % kColourCount];
}
int dash_of(const SweepConfig& c, std::size_t system) {
  if (c.baseline && *c.baseline == system) return 2;
  return 1 + static_cast<int>(system / kColourCount) * 2;
}

std::string plot_title(const SweepConfig& c, const std::string& what) {
  return c.title + "\n" + what + "\n" + c.profile_label;
}

// Datablock names must be identifiers: "p10" works but "p2.5" does not, so metrics get ids.
std::string block_id(SpeedMetric m) {
  return m == SpeedMetric::kP50 ? "m50" : "mq";
}

// Terminal switching: each plot is drawn to PNG, then replotted to SVG. `noenhanced` on the
// terminal line itself (a new terminal resets the mode): names like tok_s_per_user print as
// written, not with subscripts, and '&' is not taken for markup.
void emit_outputs(std::string& gp, const std::string& stem) {
  gp += "set terminal pngcairo noenhanced size 1100,720 font \"Sans,11\" background \"#ffffff\"\n";
  gp += "set output \"" + stem + ".png\"\n";
  gp += "replot\n";
  gp += "set terminal svg noenhanced size 1100,720 font \"Sans,11\" background \"#ffffff\"\n";
  gp += "set output \"" + stem + ".svg\"\n";
  gp += "replot\n";
  gp += "unset output\n";
}

std::string gnuplot_script(const SweepConfig& c, const SweepAnalysis& a) {
  const std::size_t loads = c.loads.size();
  std::string gp;
  gp += "# sparksim: the plots of \"" + c.title +
        "\", drawn from the seed means in aggregates.csv\n"
        "# (data inline below). Redraw from the sweep's directory: gnuplot gnuplot/plots.gp\n";
  gp += "set encoding utf8\nset termoption noenhanced\nset grid lc rgb \"#dddddd\"\n";
  // Draw nothing to a terminal while defining: the first `plot` goes to a null terminal.
  gp += "set terminal unknown\n";

  // Datablocks: per system, all loads (x y xlo xhi ylo yhi load) for each speed metric, and the
  // concurrency series (running, tau, lo, hi, verify, lo, hi) sorted by concurrency.
  for (std::size_t s = 0; s < c.systems.size(); ++s) {
    for (SpeedMetric m : frontier_metrics(c)) {
      const std::string name = block_id(m);
      const auto block = [&](const std::string& id, const std::vector<std::size_t>& indices) {
        gp += "$" + id + " << EOD\n";
        for (std::size_t i : indices) {
          const auto& g = a.aggregates[i];
          const auto& x = speed_of(g, m);
          const auto& y = g.throughput_tok_s_per_gpu;
          gp += fmt(x.mean, 4) + " " + fmt(y.mean, 4) + " " + fmt(x.ci95_lo, 4) + " " +
                fmt(x.ci95_hi, 4) + " " + fmt(y.ci95_lo, 4) + " " + fmt(y.ci95_hi, 4) + " " +
                load_text(c, g.load) + "\n";
        }
        gp += "EOD\n";
      };
      std::vector<std::size_t> all;
      for (std::size_t l = 0; l < loads; ++l) all.push_back(s * loads + l);
      block("all_" + name + "_" + std::to_string(s), all);
      block("front_" + name + "_" + std::to_string(s), a.frontier(m)[s]);
    }
    std::vector<std::size_t> by_conc;
    for (std::size_t l = 0; l < loads; ++l) by_conc.push_back(s * loads + l);
    std::stable_sort(by_conc.begin(), by_conc.end(), [&](std::size_t x, std::size_t y) {
      return a.aggregates[x].running_requests_mean.mean <
             a.aggregates[y].running_requests_mean.mean;
    });
    gp += "$conc_" + std::to_string(s) + " << EOD\n";
    for (std::size_t i : by_conc) {
      const auto& g = a.aggregates[i];
      gp += fmt(g.running_requests_mean.mean, 4) + " " + fmt(g.tau_mean.mean, 5) + " " +
            fmt(g.tau_mean.ci95_lo, 5) + " " + fmt(g.tau_mean.ci95_hi, 5) + " " +
            fmt(g.verify_tokens_per_request_step_mean.mean, 5) + " " +
            fmt(g.verify_tokens_per_request_step_mean.ci95_lo, 5) + " " +
            fmt(g.verify_tokens_per_request_step_mean.ci95_hi, 5) + "\n";
    }
    gp += "EOD\n";
  }

  const std::string seeds_note = c.seeds.size() > 1 ? "mean of " + std::to_string(c.seeds.size()) +
                                                          " seeds; bars: 95% confidence intervals"
                                                    : "one seed";
  // Frontier plots.
  for (SpeedMetric m : frontier_metrics(c)) {
    const std::string name = speed_metric_name(c, m);
    double x_max = 0, y_max = 0;
    for (const auto& g : a.aggregates) {
      x_max = std::max({x_max, speed_of(g, m).mean, speed_of(g, m).ci95_hi});
      y_max =
          std::max({y_max, g.throughput_tok_s_per_gpu.mean, g.throughput_tok_s_per_gpu.ci95_hi});
    }
    for (double t : c.tiers_tok_s_per_user) x_max = std::max(x_max, t);
    x_max = x_max > 0 ? x_max * 1.08 : 1.0;
    y_max = y_max > 0 ? y_max * 1.08 : 1.0;
    gp += "reset\nset encoding utf8\nset termoption noenhanced\n";
    gp += "set grid lc rgb \"#dddddd\"\nset terminal unknown\n";
    gp += "set title " +
          gnuplot_string(plot_title(
              c, "Pareto frontiers: throughput per GPU vs per-user speed (" + name + ")")) +
          "\n";
    gp += "set xlabel " +
          gnuplot_string("per-user speed, tok/s/user at " + speed_description(c, m) + "; " +
                         seeds_note) +
          "\n";
    gp += "set ylabel \"aggregate throughput, output tok/s per GPU\"\n";
    gp += "set xrange [0:" + fmt(x_max, 3) + "]\nset yrange [0:" + fmt(y_max, 3) + "]\n";
    gp += "set key top right opaque box\n";
    for (double t : c.tiers_tok_s_per_user) {
      const std::string x = fmt(t, 4);
      gp += "set arrow from " + x + ", graph 0 to " + x +
            ", graph 1 nohead dt 3 lw 1.5 lc rgb \"#444444\"\n";
      gp += "set label " + gnuplot_string("tier " + format_number(t) + " tok/s/user") + " at " + x +
            ", graph 0.02 rotate by 90 left offset 1.2,0 tc rgb \"#444444\"\n";
    }
    std::string plot = "plot ";
    for (std::size_t s = 0; s < c.systems.size(); ++s) {
      const std::string id = block_id(m) + "_" + std::to_string(s);
      const std::string lc = "lc rgb \"" + colour_of(s) + "\"";
      if (s > 0) plot += ", \\\n     ";
      plot += "$all_" + id + " using 1:2 with points pt 6 ps 1.0 " + lc + " notitle, \\\n     ";
      plot += "$front_" + id + " using 1:2:3:4:5:6 with xyerrorbars pt 7 ps 1.1 " + lc +
              " notitle, \\\n     ";
      plot += "$front_" + id + " using 1:2 with lines lw 2.5 dt " + std::to_string(dash_of(c, s)) +
              " " + lc + " title " +
              gnuplot_string(c.systems[s].label() +
                             (c.baseline && *c.baseline == s ? " (baseline)" : ""));
    }
    gp += plot + "\n";
    emit_outputs(gp, frontier_file_stem(c, m));
  }

  // Verify budget and τ against concurrency.
  const auto conc_plot = [&](const std::string& stem, const std::string& what,
                             const std::string& ylabel, int col) {
    gp += "reset\nset encoding utf8\nset termoption noenhanced\n";
    gp += "set grid lc rgb \"#dddddd\"\nset terminal unknown\n";
    gp += "set title " + gnuplot_string(plot_title(c, what)) + "\n";
    gp += "set xlabel " +
          gnuplot_string("concurrency: mean requests running (holding KV); load = " +
                         load_axis_name(c) + "; " + seeds_note) +
          "\n";
    gp += "set ylabel " + gnuplot_string(ylabel) + "\n";
    double y_max = 0;
    for (const auto& g : a.aggregates) {
      const SeedStats& y = col == 2 ? g.tau_mean : g.verify_tokens_per_request_step_mean;
      y_max = std::max({y_max, y.mean, y.ci95_hi});
    }
    gp += "set xrange [0:*]\nset yrange [0:" + fmt(y_max > 0 ? y_max * 1.12 : 1.0, 3) + "]\n";
    gp += "set key below\n";
    std::string plot = "plot ";
    for (std::size_t s = 0; s < c.systems.size(); ++s) {
      const std::string lc = "lc rgb \"" + colour_of(s) + "\"";
      const std::string cols =
          std::to_string(col) + ":" + std::to_string(col + 1) + ":" + std::to_string(col + 2);
      if (s > 0) plot += ", \\\n     ";
      plot += "$conc_" + std::to_string(s) + " using 1:" + cols + " with yerrorbars pt 7 ps 1.0 " +
              lc + " notitle, \\\n     ";
      plot += "$conc_" + std::to_string(s) + " using 1:" + std::to_string(col) +
              " with lines lw 2.5 dt " + std::to_string(dash_of(c, s)) + " " + lc + " title " +
              gnuplot_string(c.systems[s].label());
    }
    gp += plot + "\n";
    emit_outputs(gp, stem);
  };
  conc_plot("verify_budget", "Verify budget vs concurrency",
            "verify budget: tokens verified per request-step (1 + drafts verified)", 5);
  conc_plot("tau", "Accepted tokens per step vs concurrency",
            "tau: tokens committed per request-step (bonus token included)", 2);
  return gp;
}

// ----- HTML ----------------------------------------------------------------------------------

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
  const std::string png = read_binary(dir / (stem + ".png"));
  return "<figure><img src=\"data:image/png;base64," + base64(png) + "\" alt=\"" +
         html_escape(alt) + "\" width=\"1100\" height=\"720\"><figcaption>" + html_escape(alt) +
         " (<a href=\"" + stem + ".svg\">" + stem + ".svg</a>)</figcaption></figure>\n";
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
      row.push_back(fmt(speed_of(g, m).mean, 1));
    } else {
      const auto& f = a.aggregates[o.fastest];
      row.push_back("cannot meet at any swept load (fastest: " + fmt(speed_of(f, m).mean, 1) +
                    " tok/s/user at load " + load_text(c, f.load) + ")");
      row.push_back("-");
      row.push_back("-");
    }
    row.push_back(o.throughput_ratio_vs_baseline ? fmt(*o.throughput_ratio_vs_baseline, 3) + "x"
                                                 : "-");
    if (o.speed_ratio_at_matched_throughput) {
      const auto& g = a.aggregates[*o.matched];
      row.push_back(fmt(*o.speed_ratio_at_matched_throughput, 3) + "x (load " +
                    load_text(c, g.load) + ", " + fmt(g.throughput_tok_s_per_gpu.mean, 1) +
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
                      fmt(a.aggregates[*base->best].throughput_tok_s_per_gpu.mean, 1) +
                      " tok/s/GPU at any swept load)");
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string report_html(const SweepConfig& c, const SweepAnalysis& a,
                        const std::filesystem::path& dir, bool plots, const std::string& producer) {
  const bool analytic = c.profile_source == "analytic";
  const bool measured_db = c.profile_source == "measured-db";
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<title>" +
       html_escape(c.title + (analytic      ? " (ANALYTIC profile)"
                              : measured_db ? " (MEASURED-DB profile)"
                                            : "")) +
       "</title>\n";
  h += R"(<style>
body { font-family: sans-serif; margin: 24px auto; max-width: 1180px; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 4px; }
h2 { font-size: 1.25em; margin-top: 32px; border-bottom: 1px solid #ccc; }
.profile { padding: 8px 12px; border-radius: 4px; background: #eef5ff; border: 1px solid #9bc; }
.analytic { background: #fff4d6; border: 1px solid #d9a400; font-weight: bold; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.92em; }
th, td { border: 1px solid #bbb; padding: 3px 8px; text-align: left; }
th { background: #f0f0f0; }
figure { margin: 12px 0; }
figcaption { font-size: 0.9em; color: #555; }
code { background: #f4f4f4; padding: 1px 4px; }
</style>
</head>
<body>
)";
  h += "<h1>" + html_escape(c.title) + "</h1>\n";
  h += "<p class=\"profile" + std::string(analytic ? " analytic" : "") +
       "\">Profile: " + html_escape(c.profile_label) +
       (analytic      ? ". Every number on this page is simulated on this roofline estimate, not "
                        "measured on a GPU."
        : measured_db ? ". Its step times are composed from per-kernel latencies that a public "
                        "database measured on this GPU (named above); sparksim measured nothing."
                      : ".") +
       "</p>\n";
  if (!c.about.empty()) h += "<p>" + html_escape(c.about) + "</p>\n";

  // Setup.
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
  const std::string workload =
      !c.trace_path.empty()
          ? "trace " + c.trace_path +
                (c.max_requests > 0 ? " (first " + std::to_string(c.max_requests) + " rows)" : "")
          : (c.load_kind == LoadKind::kConcurrency ? "closed-loop users, lengths from " : "") +
                std::string("synthetic ") + c.synthetic;
  h += "<h2>Setup</h2>\n";
  h += html_table(
      {"field", "value"},
      {{"workload", workload},
       {"profile", c.profile_path},
       {"load (" + load_axis_name(c) + ")", loads},
       {"seeds", seeds},
       {"systems (drafter + policy)", systems},
       {"acceptance model", c.acceptance},
       {"engine", "max_running " + std::to_string(c.max_running) + ", max_batch_tokens " +
                      std::to_string(c.max_batch_tokens) + ", prefill " + c.prefill},
       {"points simulated", std::to_string(c.point_count())},
       {"sparksim", producer}});

  // Frontiers.
  for (SpeedMetric m : frontier_metrics(c)) {
    const std::string name = speed_metric_name(c, m);
    h += "<h2>Throughput vs per-user speed (" + html_escape(name) + ")</h2>\n";
    h += "<p>Per-user speed is tok/s/user (1 / TPOT) at the " +
         html_escape(speed_description(c, m)) +
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
  }

  // Tiers.
  if (!c.tiers_tok_s_per_user.empty() && c.baseline) {
    for (SpeedMetric m : frontier_metrics(c)) {
      const std::string name = speed_metric_name(c, m);
      const auto outcomes = evaluate_tiers(c, a, c.tiers_tok_s_per_user, *c.baseline, m);
      h += "<h2>Interactivity tiers (" + html_escape(name) + ")</h2>\n";
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
    }
  }

  // Verify budget and tau.
  h += "<h2>Verify budget and tau vs concurrency</h2>\n";
  h += "<p>Concurrency is the time-average number of requests holding KV cache.</p>\n";
  if (plots) {
    h += image_tag(dir, "verify_budget", "Verify budget vs concurrency, " + c.profile_label);
    h += image_tag(dir, "tau", "tau vs concurrency, " + c.profile_label);
  }

  // All loads.
  h += "<h2>Every load (mean over seeds, 95% CI)</h2>\n";
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

  h += "<h2>Files</h2>\n<p>";
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

std::string speed_metric_name(const SweepConfig& c, SpeedMetric m) {
  return m == SpeedMetric::kP50 ? "p50" : "p" + format_number(c.percentile);
}

std::string sweep_json_text(const SweepConfig& c) {
  nlohmann::ordered_json j;
  j["schema"] = kSweepOutputSchema;
  j["sparksim_version"] = sparksim_version();
  j["sparksim_git_sha"] = sparksim_git_sha();
  j["profile_source"] = c.profile_source;
  j["profile_label"] = c.profile_label;
  j["points"] = c.point_count();
  j["config"] = c.resolved();
  return format_json(j);
}

SweepConfig parse_sweep_json(const std::string& text, const std::string& path) {
  const JsonFile f = JsonFile::parse(text, path);
  using Pointer = JsonFile::Pointer;
  const std::string schema = f.get_string(Pointer("/schema"));
  if (schema != kSweepOutputSchema) {
    f.fail(Pointer("/schema"), "schema is '" + schema + "'; expected '" + kSweepOutputSchema +
                                   "' (a sweep output's sweep.json)");
  }
  SweepConfig c = parse_sweep_config(JsonFile::from_json(f.at(Pointer("/config")), path));
  c.profile_source = f.get_string(Pointer("/profile_source"));
  c.profile_label = f.get_string(Pointer("/profile_label"));
  return c;
}

std::string aggregates_csv(const SweepConfig& c, const SweepAnalysis& a) {
  std::string out =
      "drafter,policy,load_kind,load,seeds,tok_s_per_user_percentile,"
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
      "frontier,drafter,policy,load_kind,load,seeds,tok_s_per_user,tok_s_per_user_ci95_lo,"
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
      r.fixed(speed_of(g, m).mean, kDigits);
    } else {
      r.text("").integer(static_cast<std::int64_t>(c.seeds.size()));
      r.text("").text("").text("").text("");
    }
    const auto& f = a.aggregates[o.fastest];
    r.text(load_text(c, f.load)).fixed(speed_of(f, m).mean, kDigits);
    if (o.throughput_ratio_vs_baseline) {
      r.fixed(*o.throughput_ratio_vs_baseline, kDigits);
    } else {
      r.text("");
    }
    if (o.matched) {
      const auto& g = a.aggregates[*o.matched];
      r.text(load_text(c, g.load))
          .fixed(g.throughput_tok_s_per_gpu.mean, kDigits)
          .fixed(speed_of(g, m).mean, kDigits);
    } else {
      r.text("").text("").text("");
    }
    if (o.speed_ratio_at_matched_throughput) {
      r.fixed(*o.speed_ratio_at_matched_throughput, kDigits);
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

void write_sweep_outputs(const SweepConfig& config, const std::string& sweep_json,
                         const std::string& points_csv, const std::filesystem::path& dir,
                         bool plots) {
  const auto points = parse_points_csv(points_csv, (dir / "points.csv").string());
  const SweepAnalysis analysis = analyze_sweep(config, points);
  const auto provenance = nlohmann::json::parse(sweep_json);
  write_binary(dir / "sweep.json", sweep_json);
  write_binary(dir / "points.csv", points_csv);
  write_binary(dir / "aggregates.csv", aggregates_csv(config, analysis));
  write_binary(dir / "frontier.csv", frontier_csv(config, analysis));
  if (plots) {
    std::filesystem::create_directories(dir / "gnuplot");
    write_binary(dir / "gnuplot" / "plots.gp", gnuplot_script(config, analysis));
    run_gnuplot(dir, "gnuplot/plots.gp");
  }
  write_binary(dir / "report.html",
               report_html(config, analysis, dir, plots,
                           provenance.value("sparksim_version", std::string("?")) + " (" +
                               provenance.value("sparksim_git_sha", std::string("?")) + ")"));
}

}  // namespace sparksim
