// The sweep's gnuplot script: datablocks per system, then one plot per figure, each drawn to PNG
// and replotted to SVG.
#include "experiments/report/sweep_plots.hpp"

#include <algorithm>

#include "common/json_file.hpp"
#include "experiments/report/gnuplot.hpp"
#include "experiments/report/report_format.hpp"
#include "experiments/report/sweep_report.hpp"

namespace sparksim {

namespace {

using namespace report;  // the formatting every sweep output shares

// Distinct, colour-blind-friendly line colours (Okabe-Ito first, then Tableau); systems beyond
// them cycle with a different dash pattern.
constexpr const char* kColours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                    "#e69f00", "#56b4e9", "#8c564b", "#7f7f7f"};
constexpr std::size_t kColourCount = sizeof kColours / sizeof kColours[0];

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

// A datablock $id of the given aggregates: x y xlo xhi ylo yhi load (x the speed metric, y the
// throughput per GPU).
void append_speed_block(std::string& gp, const SweepConfig& c, const SweepAnalysis& a,
                        SpeedMetric m, const std::string& id,
                        const std::vector<std::size_t>& indices) {
  gp += "$" + id + " << EOD\n";
  for (std::size_t i : indices) {
    const auto& g = a.aggregates[i];
    const auto& x = speed_of(g, m);
    const auto& y = g.throughput_tok_s_per_gpu;
    gp += fixed_text(x.mean, 4) + " " + fixed_text(y.mean, 4) + " " + fixed_text(x.ci95_lo, 4) +
          " " + fixed_text(x.ci95_hi, 4) + " " + fixed_text(y.ci95_lo, 4) + " " +
          fixed_text(y.ci95_hi, 4) + " " + load_text(c, g.load) + "\n";
  }
  gp += "EOD\n";
}

// $conc_<s>: system s's loads sorted by concurrency (running, tau, lo, hi, verify, lo, hi).
void append_concurrency_block(std::string& gp, const SweepConfig& c, const SweepAnalysis& a,
                              std::size_t s) {
  const std::size_t loads = c.loads.size();
  std::vector<std::size_t> by_conc;
  for (std::size_t l = 0; l < loads; ++l) by_conc.push_back(s * loads + l);
  std::stable_sort(by_conc.begin(), by_conc.end(), [&](std::size_t x, std::size_t y) {
    return a.aggregates[x].running_requests_mean.mean < a.aggregates[y].running_requests_mean.mean;
  });
  gp += "$conc_" + std::to_string(s) + " << EOD\n";
  for (std::size_t i : by_conc) {
    const auto& g = a.aggregates[i];
    gp += fixed_text(g.running_requests_mean.mean, 4) + " " + fixed_text(g.tau_mean.mean, 5) + " " +
          fixed_text(g.tau_mean.ci95_lo, 5) + " " + fixed_text(g.tau_mean.ci95_hi, 5) + " " +
          fixed_text(g.verify_tokens_per_request_step_mean.mean, 5) + " " +
          fixed_text(g.verify_tokens_per_request_step_mean.ci95_lo, 5) + " " +
          fixed_text(g.verify_tokens_per_request_step_mean.ci95_hi, 5) + "\n";
  }
  gp += "EOD\n";
}

// Datablocks: per system, all loads and the frontier for each speed metric, and the concurrency
// series.
void append_datablocks(std::string& gp, const SweepConfig& c, const SweepAnalysis& a) {
  const std::size_t loads = c.loads.size();
  for (std::size_t s = 0; s < c.systems.size(); ++s) {
    for (SpeedMetric m : frontier_metrics(c)) {
      const std::string name = block_id(m);
      std::vector<std::size_t> all;
      for (std::size_t l = 0; l < loads; ++l) all.push_back(s * loads + l);
      append_speed_block(gp, c, a, m, "all_" + name + "_" + std::to_string(s), all);
      append_speed_block(gp, c, a, m, "front_" + name + "_" + std::to_string(s), a.frontier(m)[s]);
    }
    append_concurrency_block(gp, c, a, s);
  }
}

// A new plot: everything reset, drawn to the null terminal until emit_outputs.
void start_plot(std::string& gp) {
  gp += "reset\nset encoding utf8\nset termoption noenhanced\n";
  gp += "set grid lc rgb \"#dddddd\"\nset terminal unknown\n";
}

// A dotted vertical line and a label at each interactivity tier.
void append_tier_markers(std::string& gp, const SweepConfig& c) {
  for (double t : c.tiers_tok_s_per_user) {
    const std::string x = fixed_text(t, 4);
    gp += "set arrow from " + x + ", graph 0 to " + x +
          ", graph 1 nohead dt 3 lw 1.5 lc rgb \"#444444\"\n";
    gp += "set label " + gnuplot_string("tier " + format_number(t) + " tok/s/user") + " at " + x +
          ", graph 0.02 rotate by 90 left offset 1.2,0 tc rgb \"#444444\"\n";
  }
}

// Per system: every load as a point, the frontier with its error bars and as a line.
std::string frontier_plot_command(const SweepConfig& c, SpeedMetric m) {
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
  return plot;
}

// The Pareto frontiers for speed metric m: throughput per GPU against per-user speed.
void append_frontier_plot(std::string& gp, const SweepConfig& c, const SweepAnalysis& a,
                          SpeedMetric m, const std::string& seeds_note) {
  const std::string name = speed_metric_name(c, m);
  double x_max = 0, y_max = 0;
  for (const auto& g : a.aggregates) {
    x_max = std::max({x_max, speed_of(g, m).mean, speed_of(g, m).ci95_hi});
    y_max = std::max({y_max, g.throughput_tok_s_per_gpu.mean, g.throughput_tok_s_per_gpu.ci95_hi});
  }
  for (double t : c.tiers_tok_s_per_user) x_max = std::max(x_max, t);
  x_max = x_max > 0 ? x_max * 1.08 : 1.0;
  y_max = y_max > 0 ? y_max * 1.08 : 1.0;
  start_plot(gp);
  gp += "set title " +
        gnuplot_string(plot_title(
            c, "Pareto frontiers: throughput per GPU vs per-user speed (" + name + ")")) +
        "\n";
  gp += "set xlabel " +
        gnuplot_string("per-user speed, tok/s/user at " + speed_description(c, m) + "; " +
                       seeds_note) +
        "\n";
  gp += "set ylabel \"aggregate throughput, output tok/s per GPU\"\n";
  gp +=
      "set xrange [0:" + fixed_text(x_max, 3) + "]\nset yrange [0:" + fixed_text(y_max, 3) + "]\n";
  gp += "set key top right opaque box\n";
  append_tier_markers(gp, c);
  gp += frontier_plot_command(c, m) + "\n";
  emit_outputs(gp, frontier_file_stem(c, m));
}

// Column `col` of the $conc blocks (2: τ, 5: verify budget) against concurrency, per system.
void append_concurrency_plot(std::string& gp, const SweepConfig& c, const SweepAnalysis& a,
                             const std::string& stem, const std::string& what,
                             const std::string& ylabel, int col, const std::string& seeds_note) {
  start_plot(gp);
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
  gp += "set xrange [0:*]\nset yrange [0:" + fixed_text(y_max > 0 ? y_max * 1.12 : 1.0, 3) + "]\n";
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
}

}  // namespace

std::string sweep_gnuplot_script(const SweepConfig& c, const SweepAnalysis& a) {
  std::string gp;
  gp += "# sparksim: the plots of \"" + c.title +
        "\", drawn from the seed means in aggregates.csv\n"
        "# (data inline below). Redraw from the sweep's directory: gnuplot gnuplot/plots.gp\n";
  gp += "set encoding utf8\nset termoption noenhanced\nset grid lc rgb \"#dddddd\"\n";
  // Draw nothing to a terminal while defining: the first `plot` goes to a null terminal.
  gp += "set terminal unknown\n";
  append_datablocks(gp, c, a);

  const std::string seeds_note = c.seeds.size() > 1 ? "mean of " + std::to_string(c.seeds.size()) +
                                                          " seeds; bars: 95% confidence intervals"
                                                    : "one seed";
  for (SpeedMetric m : frontier_metrics(c)) append_frontier_plot(gp, c, a, m, seeds_note);
  // Verify budget and τ against concurrency.
  append_concurrency_plot(gp, c, a, "verify_budget", "Verify budget vs concurrency",
                          "verify budget: tokens verified per request-step (1 + drafts verified)",
                          5, seeds_note);
  append_concurrency_plot(gp, c, a, "tau", "Accepted tokens per step vs concurrency",
                          "tau: tokens committed per request-step (bonus token included)", 2,
                          seeds_note);
  return gp;
}

}  // namespace sparksim
