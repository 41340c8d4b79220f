// The study's files: sensitivity.csv (one row per output and input: low, high, the output at
// nominal, low and high, the change high - low), break_even.csv, sobol.csv (with a joint design),
// and report.html (self-contained: tornado charts as PNG data, break-evens beside each chart,
// the tables). Numbers are printed with full round-trip precision in the CSVs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "experiments/sensitivity/sensitivity_study.hpp"

namespace sparksim {

struct StudyDescription {
  std::string title, about, experiment_path, experiment_title, profile_label, producer;
};

std::string sensitivity_csv(const std::vector<SensitivityInput>& inputs,
                            const std::vector<StudyOutput>& outputs, const StudyResult& r);
std::string break_even_csv(const std::vector<SensitivityInput>& inputs,
                           const std::vector<StudyOutput>& outputs, const StudyResult& r);
std::string sobol_csv(const std::vector<SensitivityInput>& inputs,
                      const std::vector<StudyOutput>& outputs, const StudyResult& r,
                      const JointDesign& joint);

// `dir` holds the charts (tornado_<k>.png) drawn from tornado_gnuplot_script.
std::string sensitivity_report_html(const StudyDescription& d,
                                    const std::vector<SensitivityInput>& inputs,
                                    const std::vector<StudyOutput>& outputs, const StudyResult& r,
                                    const std::filesystem::path& dir);

}  // namespace sparksim
