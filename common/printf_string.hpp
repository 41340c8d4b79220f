// printf-style formatting into a std::string, for the fixed-width text tables the reports print
// (one copy for every report that lays out columns with printf specifiers).
#pragma once

#include <cstdio>
#include <string>

namespace sparksim {

// `spec` is a printf format; the result is cut at 511 characters (one table line).
template <typename... Values>
std::string printf_string(const char* spec, Values... values) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, spec, values...);
  return buffer;
}

}  // namespace sparksim
