// Writing the study's CSVs and HTML report.
#include "experiments/sensitivity/sensitivity_report.hpp"

#include <cmath>
#include <cstdio>

#include "common/base64.hpp"
#include "common/csv_table.hpp"
#include "common/json_file.hpp"
#include "common/text_file.hpp"
#include "experiments/report/report_format.hpp"
#include "experiments/sensitivity/tornado_chart.hpp"

namespace sparksim {

namespace {

// Round-trip precision; an undefined output (an unmet tier) as empty.
std::string num(double x) {
  return std::isfinite(x) ? format_number(x) : "";
}
// For people: 4 significant digits, "unmet" for NaN.
std::string shown(double x) {
  if (!std::isfinite(x)) return "unmet";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

std::string row_html(const std::vector<std::string>& cells, const char* tag = "td") {
  std::string h = "<tr>";
  for (const auto& c : cells)
    h += std::string("<") + tag + ">" + report::html_escape(c) + "</" + tag + ">";
  return h + "</tr>\n";
}

// The break-even sentences for output k ("... flips at draft_cost_x = 1.52 (bracket ...)").
std::string break_even_html(const std::vector<SensitivityInput>& inputs,
                            const std::vector<StudyOutput>& outputs, const StudyResult& r,
                            std::size_t k) {
  if (!outputs[k].comparison) return "";
  std::string h =
      "<div class=\"breakeven\"><b>Break-even</b> (gain crosses 1, other inputs "
      "nominal):<ul>";
  bool any = false;
  for (const auto& b : r.break_even) {
    if (b.output != k) continue;
    any = true;
    h += "<li>" + report::html_escape(inputs[b.input].label()) + " = " +
         report::html_escape(shown(b.found.value)) + " (bracket [" +
         report::html_escape(shown(b.found.bracket_lo)) + ", " +
         report::html_escape(shown(b.found.bracket_hi)) + "], " + std::to_string(b.found.steps) +
         " bisection steps)</li>";
  }
  if (!any) h += "<li>no input flips the comparison inside its range</li>";
  return h + "</ul></div>\n";
}

std::string tornado_table(const std::vector<SensitivityInput>& inputs, const StudyResult& r,
                          std::size_t k) {
  std::string h = "<table>\n" + row_html({"input", "low", "high", "output at low", "output at high",
                                          "change (high - low)"},
                                         "th");
  for (std::size_t i : tornado_order(r.one_at_a_time, k)) {
    const auto& row = r.one_at_a_time.rows[i];
    h += row_html({inputs[i].label(), inputs[i].low_text(), inputs[i].high_text(),
                   shown(row.at_low[k]), shown(row.at_high[k]),
                   shown(row.at_high[k] - row.at_low[k])});
  }
  return h + "</table>\n";
}

}  // namespace

std::string sensitivity_csv(const std::vector<SensitivityInput>& inputs,
                            const std::vector<StudyOutput>& outputs, const StudyResult& r) {
  std::string csv = "output,input,low,high,output_at_nominal,output_at_low,output_at_high,change\n";
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    for (const auto& row : r.one_at_a_time.rows) {
      const auto& in = inputs[row.input];
      csv += csv_cell(outputs[k].name) + "," + in.label() + "," + csv_cell(in.low_text()) + "," +
             csv_cell(in.high_text()) + "," + num(r.one_at_a_time.at_nominal[k]) + "," +
             num(row.at_low[k]) + "," + num(row.at_high[k]) + "," +
             num(row.at_high[k] - row.at_low[k]) + "\n";
    }
  }
  return csv;
}

std::string break_even_csv(const std::vector<SensitivityInput>& inputs,
                           const std::vector<StudyOutput>& outputs, const StudyResult& r) {
  std::string csv = "output,input,break_even,bracket_low,bracket_high,steps\n";
  for (const auto& b : r.break_even) {
    csv += csv_cell(outputs[b.output].name) + "," + inputs[b.input].label() + "," +
           num(b.found.value) + "," + num(b.found.bracket_lo) + "," + num(b.found.bracket_hi) +
           "," + std::to_string(b.found.steps) + "\n";
  }
  return csv;
}

std::string sobol_csv(const std::vector<SensitivityInput>& inputs,
                      const std::vector<StudyOutput>& outputs, const StudyResult& r,
                      const JointDesign& joint) {
  std::string csv = "output,input,first_order,first_order_se,total,total_se,samples,seed\n";
  for (const auto& s : r.sobol) {
    for (std::size_t j = 0; j < s.inputs.size(); ++j) {
      const std::string head =
          csv_cell(outputs[s.output].name) + "," + inputs[s.inputs[j]].label() + ",";
      // Appended, not `"," + ...`: GCC 12 warns falsely (-Wrestrict) on literal + temporary.
      std::string tail = ",";
      tail += std::to_string(joint.samples);
      tail += ',';
      tail += std::to_string(joint.seed);
      tail += '\n';
      if (!s.result) {
        csv += head + ",,," + tail;
        continue;
      }
      const SobolIndex& x = s.result->inputs[j];
      csv += head + num(x.first_order) + "," + num(x.first_order_se) + "," + num(x.total) + "," +
             num(x.total_se) + tail;
    }
  }
  return csv;
}

std::string sensitivity_report_html(const StudyDescription& d,
                                    const std::vector<SensitivityInput>& inputs,
                                    const std::vector<StudyOutput>& outputs, const StudyResult& r,
                                    const std::filesystem::path& dir) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                  report::html_escape(d.title) +
                  "</title>\n<style>body{font-family:sans-serif;max-width:"
                  "1150px;margin:auto}table{border-collapse:collapse}td,th{border:1px solid "
                  "#ccc;padding:2px 6px}.breakeven{background:#f4f4f4;padding:4px}</style>\n"
                  "</head>\n<body>\n";
  h += "<h1>" + report::html_escape(d.title) + "</h1>\n<p>" + report::html_escape(d.about) +
       "</p>\n";
  h += "<p>Experiment: " + report::html_escape(d.experiment_title) + " (" +
       report::html_escape(d.experiment_path) +
       ")<br>Profile: " + report::html_escape(d.profile_label) + "<br>" +
       std::to_string(r.evaluations) + " sweeps simulated. " + report::html_escape(d.producer) +
       "</p>\n";
  h += "<h2>Inputs</h2>\n<table>\n" + row_html({"input", "what", "low", "high"}, "th");
  for (const auto& in : inputs) {
    h += row_html({in.label(), std::string(in.kind->what), in.low_text(), in.high_text()});
  }
  h += "</table>\n";
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    h += "<h2>" + report::html_escape(outputs[k].name) +
         "</h2>\n<p>At nominal: " + report::html_escape(shown(r.one_at_a_time.at_nominal[k])) +
         "</p>\n";
    if (has_tornado(r.one_at_a_time, k)) {
      const std::string stem = "tornado_" + std::to_string(k);
      h += "<figure><img src=\"data:image/png;base64," +
           base64(read_file_bytes(dir / (stem + ".png"))) + "\" alt=\"" +
           report::html_escape(outputs[k].name) + "\" width=\"1100\" height=\"560\"><figcaption>" +
           "<a href=\"" + stem + ".svg\">" + stem + ".svg</a></figcaption></figure>\n";
    } else {
      h += "<p>Unmet at every setting: no chart.</p>\n";
    }
    h += break_even_html(inputs, outputs, r, k) + tornado_table(inputs, r, k);
  }
  if (!r.sobol.empty()) {
    h += "<h2>Joint design: Sobol indices</h2>\n<table>\n" +
         row_html({"output", "input", "first order", "± se", "total", "± se"}, "th");
    for (const auto& s : r.sobol) {
      for (std::size_t j = 0; j < s.inputs.size(); ++j) {
        if (!s.result) {
          h += row_html({outputs[s.output].name, inputs[s.inputs[j]].label(),
                         "undefined "
                         "(unmet in some samples)",
                         "", "", ""});
          continue;
        }
        const auto& x = s.result->inputs[j];
        h += row_html({outputs[s.output].name, inputs[s.inputs[j]].label(), shown(x.first_order),
                       shown(x.first_order_se), shown(x.total), shown(x.total_se)});
      }
    }
    h += "</table>\n";
  }
  return h + "</body>\n</html>\n";
}

}  // namespace sparksim
