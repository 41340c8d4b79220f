// CsvRow: appends one CSV row to a string with exact, locale-free number formatting.
// Simulated times are integer nanoseconds, so they are printed from integers (exact decimals,
// no float rounding); other reals print as std::to_chars does with fixed precision. Output files
// are therefore byte-identical across runs with the same inputs and seed.
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
    separator();
    char buf[48];
    char* at = buf;
    // Magnitude as unsigned, so the most negative value has one too.
    std::uint64_t magnitude = static_cast<std::uint64_t>(value);
    if (value < 0) {
      *at++ = '-';
      magnitude = 0 - magnitude;
    }
    std::uint64_t unit = 1;
    for (int i = 0; i < scale_digits; ++i) unit *= 10;
    at = std::to_chars(at, buf + 24, magnitude / unit).ptr;
    *at++ = '.';
    // The fraction's digits, zero-padded to scale_digits, written right to left.
    std::uint64_t fraction = magnitude % unit;
    for (int i = scale_digits - 1; i >= 0; --i) {
      at[i] = static_cast<char>('0' + fraction % 10);
      fraction /= 10;
    }
    out_.append(buf, at + scale_digits);
    return *this;
  }
  void end() { out_ += '\n'; }

 private:
  void separator() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  std::string& out_;
  bool first_ = true;
};

}  // namespace sparksim
