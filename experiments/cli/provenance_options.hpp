// The provenance options every profile-writing command shares (`profile analytic`, `measured-db`,
// `moe`, `telemetry`, `calibrate roofline`'s constants, `plan`'s composed profiles): `--date` and
// `--git-sha`, declared once so a written file's provenance is set the same way by each, and
// reproducible when both are fixed.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace sparksim::cli {

// --date YYYY-MM-DD (empty: today, UTC; see date_or_today) and --git-sha (default: this build's).
void add_provenance_options(CLI::App& cmd, std::string& date, std::string& git_sha);

// `date` when given, else today's date in UTC as YYYY-MM-DD.
std::string date_or_today(const std::string& date);

// Throws InputError for a --date that is given but not YYYY-MM-DD (before any work starts).
void check_date_option(const std::string& date);

}  // namespace sparksim::cli
