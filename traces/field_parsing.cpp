// Strict number parsing for trace fields.
#include "traces/field_parsing.hpp"

#include <charconv>
#include <cmath>

#include "common/input_error.hpp"
#include "traces/request_spec.hpp"
#include "traces/text_lines.hpp"

namespace sparksim {

bool parse_int64(std::string_view text, std::int64_t& out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && !text.empty();
}

bool parse_double(std::string_view text, double& out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out, std::chars_format::general);
  return ec == std::errc() && ptr == end && !text.empty();
}

void check_token_count(std::int64_t value, std::string_view name, std::int64_t min_value,
                       const std::string& path, std::int64_t line) {
  const std::string prefix = std::string(name) + " is " + std::to_string(value) + "; must be ";
  if (value < min_value) throw InputError(path, line, prefix + ">= " + std::to_string(min_value));
  if (value > kMaxTokensPerRequest) {
    throw InputError(path, line, prefix + "<= " + std::to_string(kMaxTokensPerRequest));
  }
}

std::int64_t parse_token_count(std::string_view field, std::string_view name,
                               std::int64_t min_value, const std::string& path, std::int64_t line) {
  std::int64_t value = 0;
  if (!parse_int64(field, value)) {
    // Digits that overflow int64 are still an integer: report the range, not the syntax.
    const bool negative = field.starts_with('-');
    const std::string_view digits = negative ? field.substr(1) : field;
    if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos) {
      throw InputError(path, line,
                       std::string(name) + " is " + quote_for_message(field) + "; must be " +
                           (negative ? ">= " + std::to_string(min_value)
                                     : "<= " + std::to_string(kMaxTokensPerRequest)));
    }
    throw InputError(
        path, line, std::string(name) + " is " + quote_for_message(field) + "; must be an integer");
  }
  check_token_count(value, name, min_value, path, line);
  return value;
}

SimTime parse_arrival_seconds(std::string_view field, std::string_view name,
                              const std::string& path, std::int64_t line) {
  double seconds = 0;
  if (!parse_double(field, seconds)) {
    throw InputError(path, line,
                     std::string(name) + " is " + quote_for_message(field) + "; must be a number");
  }
  const std::string prefix = std::string(name) + " is " + std::string(field) + "; must be ";
  if (!std::isfinite(seconds)) throw InputError(path, line, prefix + "finite");
  if (seconds < 0) throw InputError(path, line, prefix + ">= 0");
  if (seconds > sim_time_to_seconds(kMaxSimTime)) {
    throw InputError(path, line,
                     prefix + "<= " + std::to_string(kMaxSimTime / kNanosPerSecond) +
                         " (the simulator's time limit)");
  }
  return seconds_to_sim_time(seconds);
}

}  // namespace sparksim
