// Naive (time-zone-free) calendar timestamps as exact integer seconds + nanoseconds, for traces
// that record wall-clock arrivals (Azure). Arrivals are differences of two such times, so day,
// month and year boundaries must count exactly: days_from_civil does the calendar arithmetic.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sparksim {

// Days from 1970-01-01 to year-month-day in the proleptic Gregorian calendar (negative before
// 1970). Howard Hinnant's days_from_civil; exact for every int32 year. Does not validate: pass a
// real date (see days_in_month).
constexpr std::int64_t days_from_civil(std::int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const std::int64_t year_of_era = year - era * 400;  // [0, 399]
  const std::int64_t day_of_year =
      (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;  // [0, 365]
  const std::int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;  // [0, 146096]
  return era * 146097 + day_of_era - 719468;
}

constexpr bool is_leap_year(std::int64_t year) {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

// 28..31; 0 for a month outside 1..12.
constexpr int days_in_month(std::int64_t year, int month) {
  constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return 0;
  return month == 2 && is_leap_year(year) ? 29 : kDays[month - 1];
}

struct CivilTime {
  std::int64_t seconds = 0;  // since 1970-01-01 00:00:00 (no time zone, no leap seconds)
  std::int64_t nanos = 0;    // [0, 1e9)
};

// Parses `YYYY-MM-DD HH:MM:SS` with an optional fraction of 1 to 9 digits (Azure writes 7,
// i.e. 100 ns), exactly: no floating point. Returns "" on success, else why the text is not such
// a timestamp (for an error message). Rejects out-of-range fields (month 13, Feb 30, hour 24,
// second 60: the source has no leap seconds).
std::string parse_civil_time(std::string_view text, CivilTime& out);

}  // namespace sparksim
