// MeasuredCsv parsing. Numbers go through std::from_chars (locale-free, exact round trip of the
// shortest decimal strings the database was written with).
#include "profiles/kernel_db/measured_csv.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "common/input_error.hpp"

namespace sparksim {

namespace {

std::vector<std::string> split_fields(std::string_view line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.emplace_back(
        line.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

}  // namespace

MeasuredCsv MeasuredCsv::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open the table");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

MeasuredCsv MeasuredCsv::parse(std::string_view text, std::string path) {
  MeasuredCsv t;
  t.path_ = std::move(path);
  std::int64_t line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find('"') != std::string_view::npos) {
      throw InputError(t.path_, line_number, "quoted fields are not supported in these tables");
    }
    if (line_number == 1) {
      t.header_ = split_fields(line);
      std::set<std::string> seen;
      for (const std::string& name : t.header_) {
        if (name.empty() || !seen.insert(name).second) {
          throw InputError(t.path_, 1, "empty or duplicate column name '" + name + "'");
        }
      }
      continue;
    }
    if (line.empty()) {
      throw InputError(t.path_, line_number, "empty line inside the table");
    }
    std::vector<std::string> fields = split_fields(line);
    if (fields.size() != t.header_.size()) {
      throw InputError(t.path_, line_number,
                       std::to_string(fields.size()) + " fields; the header has " +
                           std::to_string(t.header_.size()));
    }
    t.cells_.push_back(std::move(fields));
    t.lines_.push_back(line_number);
  }
  if (t.header_.empty()) throw InputError(t.path_, 1, "empty file: no header row");
  return t;
}

std::size_t MeasuredCsv::column(const std::string& name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  std::string present;
  for (const std::string& h : header_) present += (present.empty() ? "" : ", ") + h;
  throw InputError(path_, 1, "no column '" + name + "'; the header has: " + present);
}

void MeasuredCsv::fail(std::size_t row, const std::string& what) const {
  throw InputError(path_, lines_[row], what);
}

double MeasuredCsv::number(std::size_t row, std::size_t column) const {
  const std::string& s = cells_[row][column];
  double x = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(x)) {
    fail(row, "column '" + header_[column] + "' is '" + s + "', not a finite number");
  }
  return x;
}

std::int64_t MeasuredCsv::integer(std::size_t row, std::size_t column, std::int64_t min,
                                  std::int64_t max) const {
  const std::string& s = cells_[row][column];
  std::int64_t x = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || end != s.data() + s.size()) {
    fail(row, "column '" + header_[column] + "' is '" + s + "', not an integer");
  }
  if (x < min || x > max) {
    fail(row, "column '" + header_[column] + "' is " + s + "; must be in [" + std::to_string(min) +
                  ", " + std::to_string(max) + "]");
  }
  return x;
}

}  // namespace sparksim
