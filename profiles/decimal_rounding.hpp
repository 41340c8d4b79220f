// The one rounding rule for numbers a profile stores (its terms and its SPS tables): a fixed
// number of decimal places through the decimal text. finish_profile() applies it to every term
// (profiles/profile_finishing.hpp), build_sps_tables() to every SPS value.
#pragma once

#include <string>

namespace sparksim {

// `decimals` places through the decimal text, so the result is the double nearest that decimal
// and prints back as it (committed files stay short and diff cleanly), and rounding an already
// rounded number to as many or more places changes nothing. kAsComputed (any negative count)
// returns x unchanged.
double round_decimals(double x, int decimals);
inline constexpr int kAsComputed = -1;

// x with exactly `digits` decimals ("%.*f"), for the numbers a profile's notes quote.
std::string format_fixed(double x, int digits);

}  // namespace sparksim
