// CsvRow's number formatting against hand-written expectations: exact decimals from integer
// counts (zero-padded fractions, signs, the most negative value), fixed precision (and its fast
// path against std::to_chars on ties, near-ties and random values), separators.
#include "common/csv_row.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

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
std::string library_fixed(double value, int digits) {
  char buf[400];
  return {buf, std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, digits).ptr};
}
}  // namespace

TEST_CASE("CsvRow::fixed prints what std::to_chars prints, exact ties rounded half to even") {
  // Hand-checked ties: 1/128 = 0.0078125 exactly, 5/8 = 0.625 exactly.
  CHECK(fixed(0.0078125, 6) == "0.007812");
  CHECK(fixed(0.0234375, 6) == "0.023438");
  CHECK(fixed(0.625, 2) == "0.62");
  CHECK(fixed(0.875, 2) == "0.88");
  CHECK(fixed(-0.0, 3) == "-0.000");
  CHECK(fixed(0.0, 3) == "0.000");
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> values = {inf,
                                -inf,
                                std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::denorm_min(),
                                0x1p-600,
                                1e300,
                                -2.0 / 3.0};
  for (int i = 0; i < 100000; ++i) {
    const double magnitude = std::pow(10.0, -12.0 + 26.0 * unit(rng));
    switch (i % 5) {
      case 0:  // anywhere
        values.push_back(magnitude);
        break;
      case 1:  // a dyadic number with few bits: exact ties at some precisions
        values.push_back(
            std::ldexp(static_cast<double>(rng() % 4096), -static_cast<int>(rng() % 30)));
        break;
      case 2: {  // the double nearest a decimal half, and its neighbours
        const double half = (std::floor(magnitude) + 0.5) / 1e6;
        values.push_back(half);
        values.push_back(std::nextafter(half, 0.0));
        values.push_back(std::nextafter(half, inf));
        break;
      }
      case 3:  // a ratio like the metrics print (ms per token, tokens per step)
        values.push_back(static_cast<double>(rng() % 100000000) /
                         static_cast<double>(1 + rng() % 2000));
        break;
      default:  // negative: always the library's path
        values.push_back(-magnitude);
    }
  }
  for (const double v : values) {
    for (int digits = 0; digits <= 10; ++digits) {
      INFO("value " << library_fixed(v, 20) << " digits " << digits);
      REQUIRE(fixed(v, digits) == library_fixed(v, digits));
    }
  }
}
