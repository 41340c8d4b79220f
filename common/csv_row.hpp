// CsvRow: appends one CSV row to a string with exact, locale-free, fast number formatting.
// Simulated times are integer nanoseconds, so they are printed from integers (exact decimals,
// no float rounding); other reals print as std::to_chars does with fixed precision. Output files
// are therefore byte-identical across runs with the same inputs and seed.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
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
  // the exact binary value rounded half to even. For the common case (+0 or a positive value
  // below 2^50 / 10^digits, 1 <= digits <= 9) the same rounding is done here on an exact product
  // and printed as scaled(): to_chars of a fixed precision was a measurable share of writing
  // requests.csv.
  CsvRow& fixed(double value, int digits) {
    if (const auto units = rounded_units(value, digits)) return scaled(*units, digits);
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
  // round-half-even(value · 10^digits) when fixed() can print it as scaled(), else nothing.
  // value · 10^digits = p + e exactly (Dekker's product: value split into 26 + 27 bits, 10^digits
  // has at most 21 significant bits, so each partial product is exact), p < 2^50. p's fraction
  // minus 1/2 is exact when it matters (from 1/4 up, Sterbenz) and, when not zero, a multiple of
  // ulp(p), larger than |e| <= ulp(p)/2: its sign decides, and at 0 the sign of e does.
  static std::optional<std::int64_t> rounded_units(double value, int digits) {
    if (digits < 1 || digits > 9 || std::signbit(value)) return std::nullopt;
    if (value == 0.0) return 0;
    double scale = 1;
    for (int i = 0; i < digits; ++i) scale *= 10;
    // (The lower bound keeps every partial product clear of underflow.)
    if (!(value >= 0x1p-600 && value < 0x1p50 / scale)) return std::nullopt;
    const double product = value * scale;
    const double split = value * 134217729.0;  // 2^27 + 1
    const double high = split - (split - value);
    const double low = value - high;
    const double error = (high * scale - product) + low * scale;
    const auto whole = static_cast<std::int64_t>(product);
    const double above_half = (product - static_cast<double>(whole)) - 0.5;
    if (above_half > 0 || (above_half == 0 && (error > 0 || (error == 0 && (whole & 1) != 0)))) {
      return whole + 1;
    }
    return whole;
  }
  void separator() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  std::string& out_;
  bool first_ = true;
};

}  // namespace sparksim
