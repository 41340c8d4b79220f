// CsvRow's number formatting against hand-written expectations: exact decimals from integer
// counts (zero-padded fractions, signs, the most negative value), fixed precision (exact binary
// ties and the doubles beside decimal halves, worked by hand), separators.
#include "common/csv_row.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

using namespace sparksim;

namespace {
std::string scaled(std::int64_t value, int digits) {
  std::string out;
  CsvRow(out).scaled(value, digits);
  return out;
}
}  // namespace

TEST_CASE("CsvRow::scaled prints an integer count of 10^-d units exactly") {
  CHECK(scaled(1500, 3) == "1.500");
  CHECK(scaled(0, 6) == "0.000000");
  CHECK(scaled(7, 6) == "0.000007");
  CHECK(scaled(-1, 9) == "-0.000000001");
  CHECK(scaled(-2500000000, 9) == "-2.500000000");
  CHECK(scaled(123456789012, 9) == "123.456789012");
  CHECK(scaled(std::numeric_limits<std::int64_t>::min(), 9) == "-9223372036.854775808");
  CHECK(scaled(std::numeric_limits<std::int64_t>::max(), 18) == "9.223372036854775807");
}

TEST_CASE("CsvRow joins fields with commas and formats each kind") {
  std::string out;
  CsvRow row(out);
  row.integer(-12).text("chat").fixed(2.0 / 3.0, 6).scaled(3000001, 6).text("");
  row.end();
  CHECK(out == "-12,chat,0.666667,3.000001,\n");
}

namespace {
std::string fixed(double value, int digits) {
  std::string out;
  CsvRow(out).fixed(value, digits);
  return out;
}
}  // namespace

TEST_CASE("CsvRow::fixed prints the exact binary value rounded half to even") {
  // Hand-checked: 1/128 = 0.0078125 and 3/128 = 0.0234375 and 5/8, 7/8 are exact ties in binary.
  CHECK(fixed(0.0078125, 6) == "0.007812");
  CHECK(fixed(0.0234375, 6) == "0.023438");
  CHECK(fixed(0.625, 2) == "0.62");
  CHECK(fixed(0.875, 2) == "0.88");
  // 0.125 → 0.12 (tie, even), but the double nearest 0.135 is above it: 0.1350000000000000088...
  CHECK(fixed(0.125, 2) == "0.12");
  CHECK(fixed(0.135, 2) == "0.14");
  // The double nearest 2.675 is 2.67499999999999982236431605997495353221893310546875.
  CHECK(fixed(2.675, 2) == "2.67");
  CHECK(fixed(-0.0, 3) == "-0.000");
  CHECK(fixed(0.0, 3) == "0.000");
  CHECK(fixed(-2.0 / 3.0, 4) == "-0.6667");
  CHECK(fixed(1e21, 1) == "1000000000000000000000.0");
  CHECK(fixed(123456.5, 0) == "123456");  // a tie at 0 decimals: to even
}

namespace {
std::string ratio(std::int64_t numerator, std::int64_t denominator, int digits) {
  std::string out;
  CsvRow(out).ratio(numerator, denominator, digits);
  return out;
}
}  // namespace

TEST_CASE("CsvRow::ratio prints the exact quotient rounded half up") {
  CHECK(ratio(2, 3, 6) == "0.666667");
  CHECK(ratio(1, 3, 6) == "0.333333");
  CHECK(ratio(0, 7, 6) == "0.000000");
  CHECK(ratio(43, 14, 6) == "3.071429");  // 3.0714285714...
  // Exact ties go up, where std::to_chars of the nearest double goes to even (1/8 = 0.125 → 0.12).
  CHECK(ratio(1, 8, 2) == "0.13");
  CHECK(ratio(1, 2'000'000, 6) == "0.000001");
  CHECK(ratio(5, 2, 0) == "3");
  CHECK(ratio(14, 2, 0) == "7");
  // A rounding that carries into the whole part: 0.9999995 → 1.000000.
  CHECK(ratio(1'999'999, 2'000'000, 6) == "1.000000");
  CHECK(ratio(999, 1000, 2) == "1.00");
  // A quotient no double holds: 10 + 7.6e-18, and the largest allowed denominator.
  CHECK(ratio(std::numeric_limits<std::int64_t>::max(), 922'337'203'685'477'580, 2) == "10.00");
  // TPOT of 3 tokens over 1 ns more than 2 ms: (2'000'001 ns / 2) / 1e6 = 1.0000005 ms → up.
  CHECK(ratio(2'000'001, 2 * 1'000'000, 6) == "1.000001");
}
