// Sweep outputs: sweep.json, and write_sweep_outputs, which writes every file of a finished sweep
// through the CSV (sweep_csv), gnuplot (sweep_plots) and HTML (sweep_html) writers.
#include "experiments/report/sweep_report.hpp"

#include <fstream>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/text_file.hpp"
#include "common/version.hpp"
#include "experiments/report/gnuplot.hpp"
#include "experiments/report/sweep_html.hpp"
#include "experiments/report/sweep_plots.hpp"

namespace sparksim {

std::string speed_metric_name(const SweepConfig& c, SpeedMetric m) {
  if (m == SpeedMetric::kP50) return "p50";
  // Appended, not `"p" + ...`: GCC 12 warns falsely (-Wrestrict) on literal + temporary string.
  std::string name = "p";
  name += format_number(c.percentile);
  return name;
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

void write_sweep_outputs(const SweepConfig& config, const std::string& sweep_json,
                         const std::string& points_csv, const std::filesystem::path& dir,
                         bool plots, const SweepScenarioBand& band) {
  const auto points = parse_points_csv(points_csv, (dir / "points.csv").string());
  const SweepAnalysis analysis = analyze_sweep(config, points);
  const auto provenance = nlohmann::json::parse(sweep_json);
  write_file_bytes(dir / "sweep.json", sweep_json);
  write_file_bytes(dir / "points.csv", points_csv);
  write_file_bytes(dir / "aggregates.csv", aggregates_csv(config, analysis));
  write_file_bytes(dir / "frontier.csv", frontier_csv(config, analysis));
  if (plots) {
    std::filesystem::create_directories(dir / "gnuplot");
    write_file_bytes(dir / "gnuplot" / "plots.gp", sweep_gnuplot_script(config, analysis));
    run_gnuplot(dir, "gnuplot/plots.gp");
  }
  ScenarioAnalyses scenarios{band.scenarios, {analysis}, band.why_none};
  for (std::size_t k = 1; k < band.scenarios.size(); ++k) {
    const std::filesystem::path at = dir / "scenarios" / band.scenarios[k];
    std::filesystem::create_directories(at);
    const std::string& csv = band.points_csv.at(k - 1);
    write_file_bytes(at / "points.csv", csv);
    scenarios.analyses.push_back(
        analyze_sweep(config, parse_points_csv(csv, (at / "points.csv").string())));
  }
  write_file_bytes(
      dir / "report.html",
      sweep_report_html(config, analysis, scenarios, dir, plots,
                        provenance.value("sparksim_version", std::string("?")) + " (" +
                            provenance.value("sparksim_git_sha", std::string("?")) + ")"));
}

}  // namespace sparksim
