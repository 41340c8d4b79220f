// Fitted roofline constants as a file (see the header): writing, strict reading, and the marks
// an analytic profile generated with them carries.
#include "profiles/fitted_roofline_constants.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/input_error.hpp"
#include "common/json_file.hpp"

namespace sparksim {

namespace {

using Pointer = JsonFile::Pointer;

// The fitted constants in kRecalibratedConstants' order, with their members.
struct ConstantField {
  const char* key;
  double RooflineConstants::*member;
};
constexpr ConstantField kFields[] = {
    {"bandwidth_efficiency", &RooflineConstants::bandwidth_efficiency},
    {"gemm_efficiency", &RooflineConstants::gemm_efficiency},
    {"attention_efficiency", &RooflineConstants::attention_efficiency},
    {"kernel_overhead_us", &RooflineConstants::kernel_overhead_us},
    {"step_fixed_us", &RooflineConstants::step_fixed_us},
};

constexpr const char* kFittedTo =
    "measured-db compositions: the analytic verify_time fitted (sparksim recalibrate-analytic, "
    "Levenberg-Marquardt) to the steps composed from the database's kernel latencies at every "
    "fidelity point of each pair";

std::string percent(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", 100 * x);
  return buffer;
}

}  // namespace

std::string FittedRooflineConstants::describe() const {
  std::string pair_list;
  for (const std::string& p : pairs) pair_list += (pair_list.empty() ? "" : ", ") + p;
  return "Roofline constants FITTED to measured-db compositions of " + database + " " +
         database_repository + "@" + database_commit.substr(0, 12) + " (" + framework + "; pairs " +
         pair_list + "; rms relative error " + percent(rms_relative_error_before) + " -> " +
         percent(rms_relative_error_after) + "; " + tool + ", " + date +
         "); still an analytic roofline, not measured on this GPU.";
}

std::string format_fitted_roofline_constants(const FittedRooflineConstants& f) {
  nlohmann::ordered_json j;
  j["schema"] = kRooflineConstantsSchema;
  nlohmann::ordered_json& p = j["provenance"];
  p["fitted_to"] = kFittedTo;
  p["database"] = f.database;
  p["database_repository"] = f.database_repository;
  p["database_commit"] = f.database_commit;
  p["framework"] = f.framework;
  p["pairs"] = f.pairs;
  p["rms_relative_error_before"] = f.rms_relative_error_before;
  p["rms_relative_error_after"] = f.rms_relative_error_after;
  p["date"] = f.date;
  p["tool"] = f.tool;
  p["git_sha"] = f.git_sha;
  nlohmann::ordered_json& c = j["constants"];
  for (const ConstantField& field : kFields) c[field.key] = f.constants.*field.member;
  return format_json(j);
}

void write_fitted_roofline_constants(const FittedRooflineConstants& f, const std::string& path) {
  write_file_atomically(path, format_fitted_roofline_constants(f));
}

FittedRooflineConstants read_fitted_roofline_constants(const std::string& path) {
  const JsonFile file = JsonFile::load(path);
  file.reject_unknown_keys(Pointer(""), {"schema", "provenance", "constants"});
  const std::string schema = file.get_string(Pointer("/schema"));
  if (schema != kRooflineConstantsSchema) {
    file.fail(Pointer("/schema"),
              "schema is \"" + schema + "\"; expected \"" + kRooflineConstantsSchema + "\"");
  }
  file.get_object(Pointer("/provenance"));
  file.reject_unknown_keys(
      Pointer("/provenance"),
      {"fitted_to", "database", "database_repository", "database_commit", "framework", "pairs",
       "rms_relative_error_before", "rms_relative_error_after", "date", "tool", "git_sha"});
  FittedRooflineConstants f;
  file.get_string(Pointer("/provenance/fitted_to"));
  f.database = file.get_string(Pointer("/provenance/database"));
  f.database_repository = file.get_string(Pointer("/provenance/database_repository"));
  f.database_commit = file.get_string(Pointer("/provenance/database_commit"));
  f.framework = file.get_string(Pointer("/provenance/framework"));
  const nlohmann::json& pairs = file.get_array(Pointer("/provenance/pairs"));
  if (pairs.empty()) file.fail(Pointer("/provenance/pairs"), "pairs is empty");
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    f.pairs.push_back(file.get_string(Pointer("/provenance/pairs") / i));
  }
  f.rms_relative_error_before =
      file.get_number(Pointer("/provenance/rms_relative_error_before"), NumberRange::at_least(0));
  f.rms_relative_error_after =
      file.get_number(Pointer("/provenance/rms_relative_error_after"), NumberRange::at_least(0));
  f.date = file.get_string(Pointer("/provenance/date"));
  f.tool = file.get_string(Pointer("/provenance/tool"));
  f.git_sha = file.get_string(Pointer("/provenance/git_sha"), /*allow_empty=*/true);

  file.get_object(Pointer("/constants"));
  file.reject_unknown_keys(Pointer("/constants"),
                           {"bandwidth_efficiency", "gemm_efficiency", "attention_efficiency",
                            "kernel_overhead_us", "step_fixed_us"});
  for (const ConstantField& field : kFields) {
    f.constants.*field.member =
        file.get_number(Pointer("/constants") / field.key, NumberRange::positive());
  }
  return f;
}

void mark_fitted_constants(Profile& profile, const FittedRooflineConstants& f,
                           const std::string& path) {
  profile.provenance.tool = kAnalyticFittedTool;
  profile.provenance.notes =
      f.describe() + " Constants read from " + path + ". " + profile.provenance.notes;
}

}  // namespace sparksim
