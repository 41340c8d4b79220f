// Roofline constants fitted to a measured kernel-latency database, as a small JSON file with its
// provenance (schema `sparksim.roofline-constants/1`): `sparksim recalibrate-analytic --write`
// writes one, `sparksim profile-analytic --constants` reads one, so an analytic profile of a GPU
// without database rows inherits what the fit learned. Such a profile is still a roofline
// (provenance source `analytic`); mark_fitted_constants() makes its tool, notes and label say the
// constants came from a fit to the database, so it never passes for a measured-db profile.
#pragma once

#include <string>
#include <vector>

#include "profiles/analytic_profile.hpp"
#include "profiles/profile.hpp"

namespace sparksim {

inline constexpr const char* kRooflineConstantsSchema = "sparksim.roofline-constants/1";
// provenance.tool of an analytic profile generated with fitted constants (Profile::label reads it).
inline constexpr const char* kAnalyticFittedTool =
    "sparksim profile-analytic (roofline r1, constants fitted to measured-db)";

struct FittedRooflineConstants {
  // The five constants recalibrate-analytic fits (kRecalibratedConstants); every other constant
  // keeps its RooflineConstants default.
  RooflineConstants constants;
  // The database the constants were fitted to, as its database.json names it.
  std::string database;             // "aiconfigurator"
  std::string database_repository;  // "ai-dynamo/aiconfigurator"
  std::string database_commit;      // 40 hex
  std::string framework;            // "vLLM 0.24.0"
  std::vector<std::string> pairs;   // the (GPU, target) compositions fitted, "h100-sxm/qwen3-8b"
  // Root mean square of the analytic verify_time's relative error against the compositions.
  double rms_relative_error_before = 0;  // with the constants the fit started from
  double rms_relative_error_after = 0;
  std::string date;  // YYYY-MM-DD
  std::string tool;  // "sparksim recalibrate-analytic"
  std::string git_sha;

  // One sentence naming the fit's provenance, for a profile's notes.
  std::string describe() const;
};

// The file's exact text (keys in a fixed order, numbers in shortest round-trip form).
std::string format_fitted_roofline_constants(const FittedRooflineConstants& f);
// Writes it atomically (temporary file, then rename).
void write_fitted_roofline_constants(const FittedRooflineConstants& f, const std::string& path);
// Reads and checks everything before returning: unknown or missing keys, a wrong schema,
// non-positive constants or error figures all stop with InputError `path:line: what`.
FittedRooflineConstants read_fitted_roofline_constants(const std::string& path);

// Turns an analytic profile generated with f.constants into one that says so: provenance.tool
// becomes kAnalyticFittedTool and the notes start with f.describe() and the file's path. The
// source stays "analytic"; no step time changes.
void mark_fitted_constants(Profile& profile, const FittedRooflineConstants& f,
                           const std::string& path);

}  // namespace sparksim
