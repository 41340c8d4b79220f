// The tornado charts' gnuplot script.
#include "experiments/sensitivity/tornado_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "experiments/report/gnuplot.hpp"

namespace sparksim {

namespace {

// Full precision for datablocks; NaN (an unmet tier) as gnuplot's NaN, which it skips.
std::string datum(double x) {
  if (!std::isfinite(x)) return "NaN";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// The values' span padded by 5% (gnuplot refuses an empty range: an output no input moves).
std::string x_range(const OneAtATimeResult& r, std::size_t k) {
  double lo = r.at_nominal[k], hi = r.at_nominal[k];
  for (const auto& row : r.rows) {
    for (double x : {row.at_low[k], row.at_high[k]}) {
      if (!std::isfinite(x)) continue;
      if (!std::isfinite(lo) || x < lo) lo = x;
      if (!std::isfinite(hi) || x > hi) hi = x;
    }
  }
  const double pad = hi > lo ? 0.05 * (hi - lo) : std::max(1e-9, 0.02 * std::abs(hi));
  return datum(lo - pad) + ":" + datum(hi + pad);
}

void chart(std::string& gp, std::size_t k, const std::vector<SensitivityInput>& inputs,
           const std::string& name, const OneAtATimeResult& r, const std::string& subtitle) {
  const auto order = tornado_order(r, k);
  const std::string block = "$t" + std::to_string(k);
  gp += block + " << EOD\n";
  std::string tics;
  // Row y = n - rank: the largest swing on top.
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    const auto& row = r.rows[order[rank]];
    const double y = static_cast<double>(order.size() - rank);
    gp += datum(y) + " " + datum(r.at_nominal[k]) + " " + datum(row.at_low[k]) + " " +
          datum(row.at_high[k]) + "\n";
    const SensitivityInput& in = inputs[row.input];
    tics += (tics.empty() ? "" : ", ") +
            gnuplot_string(in.label() + " [" + in.low_text() + ", " + in.high_text() + "]") + " " +
            datum(y);
  }
  gp += "EOD\n";
  gp += "reset\nset terminal unknown\nset title " + gnuplot_string(name + "\n" + subtitle) + "\n";
  gp += "set ytics (" + tics + ")\nset yrange [0.3:" + datum(order.size() + 0.7) + "]\n";
  gp += "set grid xtics\nset key outside bottom center horizontal\n";
  gp += "set xlabel " + gnuplot_string(name) + "\n";
  gp += "set xrange [" + x_range(r, k) + "]\n";
  if (std::isfinite(r.at_nominal[k])) {
    gp += "set arrow from " + datum(r.at_nominal[k]) + ", graph 0 to " + datum(r.at_nominal[k]) +
          ", graph 1 nohead dt 2 lc rgb \"#555555\"\n";
  }
  // boxxyerror: x y xlow xhigh ylow yhigh, from nominal to the value at low / at high.
  const auto bar = [&](int column, const char* colour, const char* title) {
    return block + " using (($2+$" + std::to_string(column) + ")/2):1:($2<$" +
           std::to_string(column) + "?$2:$" + std::to_string(column) + "):($2<$" +
           std::to_string(column) + "?$" + std::to_string(column) + ":$2):($1-0.35):($1+0.35)" +
           " with boxxyerror fs solid 1.0 noborder lc rgb \"" + colour + "\" title \"" + title +
           "\"";
  };
  gp += "plot " + bar(3, kTornadoLowColour, "input at low") + ", \\\n     " +
        bar(4, kTornadoHighColour, "input at high") + "\n";
  const std::string stem = "tornado_" + std::to_string(k);
  gp += "set terminal pngcairo noenhanced size 1100,560 font \"Sans,11\" background \"#ffffff\"\n";
  gp += "set output \"" + stem + ".png\"\nreplot\n";
  gp += "set terminal svg noenhanced size 1100,560 font \"Sans,11\" background \"#ffffff\"\n";
  gp += "set output \"" + stem + ".svg\"\nreplot\nunset output\n";
}

}  // namespace

bool has_tornado(const OneAtATimeResult& result, std::size_t output) {
  for (const auto& row : result.rows) {
    if (std::isfinite(row.at_low[output]) || std::isfinite(row.at_high[output])) return true;
  }
  return false;
}

std::string tornado_gnuplot_script(const std::vector<SensitivityInput>& inputs,
                                   const std::vector<std::string>& output_names,
                                   const OneAtATimeResult& result, const std::string& subtitle) {
  std::string gp = "# sparksim sensitivity: one tornado chart per output (sensitivity.csv)\n";
  for (std::size_t k = 0; k < output_names.size(); ++k) {
    if (has_tornado(result, k)) chart(gp, k, inputs, output_names[k], result, subtitle);
  }
  return gp;
}

}  // namespace sparksim
