// CsvTable parsing: RFC 4180 cells, numbers through std::from_chars.
#include "common/csv_table.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <set>

#include "common/input_error.hpp"
#include "common/text_file.hpp"

namespace sparksim {

namespace {

// Splits one line into cells; `ok` is false for an unterminated quote.
std::vector<std::string> split_line(std::string_view line, bool& ok) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  ok = !quoted;
  return cells;
}

}  // namespace

CsvTable CsvTable::parse(std::string_view text, std::string path) {
  CsvTable t;
  t.path_ = std::move(path);
  t.text_ = std::string(text);
  const std::string_view all(t.text_);
  std::size_t pos = 0;
  std::int64_t line_number = 0;
  bool have_header = false;
  while (pos < all.size()) {
    std::size_t end = all.find('\n', pos);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = end + 1;
    ++line_number;
    bool ok = true;
    auto cells = split_line(line, ok);
    if (!ok) throw InputError(t.path_, line_number, "unterminated quoted cell");
    if (!have_header) {
      t.header_ = std::move(cells);
      have_header = true;
      std::set<std::string_view> seen;
      for (const std::string& name : t.header_) {
        if (name.empty() || !seen.insert(name).second) {
          throw InputError(t.path_, line_number, "empty or repeated column name '" + name + "'");
        }
      }
      continue;
    }
    if (cells.size() != t.header_.size()) {
      throw InputError(t.path_, line_number,
                       "row has " + std::to_string(cells.size()) + " cells; the header has " +
                           std::to_string(t.header_.size()));
    }
    t.rows_.push_back(std::move(cells));
    t.raw_.emplace_back(static_cast<std::size_t>(line.data() - all.data()), line.size());
    t.lines_.push_back(line_number);
  }
  if (!have_header) throw InputError(t.path_, 0, "file is empty; expected a header row");
  return t;
}

bool CsvTable::has_column(std::string_view name) const {
  for (const auto& h : header_) {
    if (h == name) return true;
  }
  return false;
}

std::size_t CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  std::string present;
  for (const std::string& h : header_) present += (present.empty() ? "" : ", ") + h;
  throw InputError(path_, 1, "no column '" + std::string(name) + "'; the header has: " + present);
}

const std::string& CsvTable::cell(std::size_t row, std::size_t column) const {
  return rows_.at(row).at(column);
}

double CsvTable::number(std::size_t row, std::size_t column, bool empty_ok) const {
  const std::string& s = cell(row, column);
  if (s.empty() && empty_ok) return std::numeric_limits<double>::quiet_NaN();
  double value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(value)) {
    throw InputError(path_, lines_[row],
                     header_[column] + " is '" + s + "'; must be a finite number");
  }
  return value;
}

std::int64_t CsvTable::integer(std::size_t row, std::size_t column) const {
  const std::string& s = cell(row, column);
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    throw InputError(path_, lines_[row], header_[column] + " is '" + s + "'; must be an integer");
  }
  return value;
}

std::string csv_cell(std::string_view value) {
  if (value.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(value);
  std::string out = "\"";
  for (char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

CsvTable CsvTable::load(const std::string& path) {
  return parse(read_file_bytes(path), path);
}

std::int64_t CsvTable::integer_in(std::size_t row, std::size_t column, std::int64_t lo,
                                  std::int64_t hi) const {
  const std::int64_t v = integer(row, column);
  if (v < lo || v > hi) {
    fail(row, "column " + header_[column] + " is " + std::to_string(v) + ", outside [" +
                  std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return v;
}

void CsvTable::fail(std::size_t row, const std::string& what) const {
  throw InputError(path_, line_of(row), what);
}

}  // namespace sparksim
