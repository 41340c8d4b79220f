// CsvRow's number formatting against hand-written expectations: exact decimals from integer
// counts (zero-padded fractions, signs, the most negative value), fixed precision, separators.
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
