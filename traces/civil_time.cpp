// Exact parsing of `YYYY-MM-DD HH:MM:SS.fffffff` naive timestamps.
#include "traces/civil_time.hpp"

namespace sparksim {

namespace {

// Reads exactly `count` ASCII digits at `pos`; false if any is not a digit.
bool read_digits(std::string_view text, std::size_t pos, std::size_t count, int& out) {
  if (pos + count > text.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

}  // namespace

std::string parse_civil_time(std::string_view text, CivilTime& out) {
  constexpr std::string_view kShape = "expected YYYY-MM-DD HH:MM:SS[.fffffff]";
  // Fixed layout: positions of the separators in "YYYY-MM-DD HH:MM:SS".
  constexpr std::size_t kBaseLength = 19;
  if (text.size() < kBaseLength || text[4] != '-' || text[7] != '-' || text[10] != ' ' ||
      text[13] != ':' || text[16] != ':') {
    return std::string(kShape);
  }
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_digits(text, 0, 4, year) || !read_digits(text, 5, 2, month) ||
      !read_digits(text, 8, 2, day) || !read_digits(text, 11, 2, hour) ||
      !read_digits(text, 14, 2, minute) || !read_digits(text, 17, 2, second)) {
    return std::string(kShape);
  }
  if (month < 1 || month > 12) return "month " + std::to_string(month) + " is not 1-12";
  if (day < 1 || day > days_in_month(year, month)) {
    return "day " + std::to_string(day) + " does not exist in " + std::to_string(year) + "-" +
           std::string(text.substr(5, 2));
  }
  if (hour > 23) return "hour " + std::to_string(hour) + " is not 0-23";
  if (minute > 59) return "minute " + std::to_string(minute) + " is not 0-59";
  if (second > 59) return "second " + std::to_string(second) + " is not 0-59";

  std::int64_t nanos = 0;
  if (text.size() > kBaseLength) {
    if (text[kBaseLength] != '.') return std::string(kShape);
    const std::string_view fraction = text.substr(kBaseLength + 1);
    if (fraction.empty() || fraction.size() > 9) {
      return "fraction must have 1 to 9 digits (" + std::string(kShape) + ")";
    }
    int digit = 0;
    for (std::size_t i = 0; i < 9; ++i) {
      if (i < fraction.size()) {
        if (!read_digits(fraction, i, 1, digit)) return std::string(kShape);
      } else {
        digit = 0;  // pad to nanoseconds: ".98" is 980000000 ns
      }
      nanos = nanos * 10 + digit;
    }
  }
  out.seconds = days_from_civil(year, month, day) * 86400 + std::int64_t{hour} * 3600 +
                std::int64_t{minute} * 60 + second;
  out.nanos = nanos;
  return "";
}

}  // namespace sparksim
