// CsvRow: appends one CSV row to a string with exact, locale-free number formatting.
// Simulated times are integer nanoseconds, so they are printed from integers (exact decimals,
// no float rounding), and so are ratios of integers (per-request TPOT, tok/s, τ); other reals
// print as std::to_chars does with fixed precision. Output files are therefore byte-identical
// across runs with the same inputs and seed.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace sparksim {

class CsvRow {
 public:
  explicit CsvRow(std::string& out) : out_(out) {}

  CsvRow& text(std::string_view value) {
    separator();
    out_ += value;
    return *this;
  }
  CsvRow& integer(std::int64_t value) {
    separator();
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, value).ptr);
    return *this;
  }
  // `value` with `digits` decimals, e.g. fixed(3.5, 2) → "3.50": std::to_chars's text, which is
  // the exact binary value rounded half to even.
  CsvRow& fixed(double value, int digits) {
    separator();
    char buf[512];  // the largest double has 309 integer digits
    out_.append(buf,
                std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, digits).ptr);
    return *this;
  }
  // An integer count of 10^-scale_digits units printed in whole units: scaled(1500, 3) → "1.500".
  // 1 <= scale_digits <= 18.
  CsvRow& scaled(std::int64_t value, int scale_digits) {
    // Magnitude as unsigned, so the most negative value has one too.
    std::uint64_t magnitude = static_cast<std::uint64_t>(value);
    if (value < 0) magnitude = 0 - magnitude;
    std::uint64_t unit = 1;
    for (int i = 0; i < scale_digits; ++i) unit *= 10;
    return decimal(value < 0, magnitude / unit, magnitude % unit, scale_digits);
  }
  // The exact quotient numerator / denominator with `digits` decimals, rounded half up, by long
  // division in integers: ratio(2, 3, 6) → "0.666667". Exact where a double would round first,
  // and a tenth of std::to_chars' fixed-precision cost (requests.csv prints three per request).
  // numerator >= 0, 0 < denominator <= INT64_MAX / 10 (each step multiplies a remainder by 10),
  // 0 <= digits <= 18.
  CsvRow& ratio(std::int64_t numerator, std::int64_t denominator, int digits) {
    std::int64_t whole = numerator / denominator;
    std::int64_t remainder = numerator % denominator;
    std::int64_t fraction = 0;
    std::int64_t unit = 1;
    for (int i = 0; i < digits; ++i) {
      remainder *= 10;
      fraction = fraction * 10 + remainder / denominator;
      remainder %= denominator;
      unit *= 10;
    }
    if (2 * remainder >= denominator && ++fraction == unit) {  // the half up carries
      fraction = 0;
      ++whole;
    }
    if (digits == 0) return integer(whole);
    return decimal(false, static_cast<std::uint64_t>(whole), static_cast<std::uint64_t>(fraction),
                   digits);
  }
  void end() { out_ += '\n'; }

 private:
  // "[-]whole.fraction", the fraction zero-padded to `digits` (>= 1) places.
  CsvRow& decimal(bool negative, std::uint64_t whole, std::uint64_t fraction, int digits) {
    separator();
    char buf[48];
    char* at = buf;
    if (negative) *at++ = '-';
    at = std::to_chars(at, buf + 24, whole).ptr;
    *at++ = '.';
    // The fraction's digits written right to left.
    for (int i = digits - 1; i >= 0; --i) {
      at[i] = static_cast<char>('0' + fraction % 10);
      fraction /= 10;
    }
    out_.append(buf, at + digits);
    return *this;
  }
  void separator() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  std::string& out_;
  bool first_ = true;
};

}  // namespace sparksim
