// round_decimals (see the header).
#include "profiles/decimal_rounding.hpp"

#include <cstdio>
#include <cstdlib>

namespace sparksim {

double round_decimals(double x, int decimals) {
  if (decimals < 0) return x;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, x);
  return std::strtod(buffer, nullptr);
}

}  // namespace sparksim
