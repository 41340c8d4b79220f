// round_decimals and format_fixed (see the header).
#include "profiles/decimal_rounding.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace sparksim {

double round_decimals(double x, int decimals) {
  if (decimals < 0) return x;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, x);
  return std::strtod(buffer, nullptr);
}

std::string format_fixed(double x, int digits) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << x;
  return out.str();
}

}  // namespace sparksim
