// The shared --date / --git-sha options of the profile-writing subcommands (see the header).
#include "experiments/cli/provenance_options.hpp"

#include <ctime>

#include "common/input_error.hpp"

namespace sparksim::cli {

void add_provenance_options(CLI::App& cmd, std::string& date, std::string& git_sha) {
  cmd.add_option("--date", date,
                 "provenance date YYYY-MM-DD (default: today, UTC); fix it to reproduce a file");
  cmd.add_option("--git-sha", git_sha, "provenance git revision")->capture_default_str();
}

std::string date_or_today(const std::string& date) {
  if (!date.empty()) return date;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[16];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d", &utc);
  return buffer;
}

void check_date_option(const std::string& date) {
  bool ok = date.size() == 10 && date[4] == '-' && date[7] == '-';
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9})
    ok = ok && date.size() == 10 && date[i] >= '0' && date[i] <= '9';
  if (!date.empty() && !ok) {
    throw InputError("--date: '" + date + "' is not a date; use YYYY-MM-DD");
  }
}

}  // namespace sparksim::cli
