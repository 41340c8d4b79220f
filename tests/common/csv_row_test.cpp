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
