// CsvRow: appends one CSV row to a string with exact, locale-free, fast number formatting.
// Simulated times are integer nanoseconds, so they are printed from integers (exact decimals,
// no float rounding); other reals use std::to_chars with fixed precision. Output files are
// therefore byte-identical across runs with the same inputs and seed.
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
  // `value` with `digits` decimals, e.g. fixed(3.5, 2) → "3.50".
  CsvRow& fixed(double value, int digits) {
    separator();
    char buf[64];
    out_.append(buf,
                std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, digits).ptr);
    return *this;
  }
  // An integer count of 10^-scale_digits units printed in whole units: scaled(1500, 3) → "1.500".
  CsvRow& scaled(std::int64_t value, int scale_digits) {
    separator();
    if (value < 0) {
      out_ += '-';
      value = -value;
    }
    std::int64_t unit = 1;
    for (int i = 0; i < scale_digits; ++i) unit *= 10;
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, value / unit).ptr);
    out_ += '.';
    const auto frac = std::to_string(value % unit);
    out_.append(static_cast<std::size_t>(scale_digits) - frac.size(), '0');
    out_ += frac;
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
