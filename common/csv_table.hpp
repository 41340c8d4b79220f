// CsvTable: the one CSV reader: the files sparksim writes (requests.csv, points.csv) read back by
// experiment drivers, and the measured kernel-latency databases. A header row of distinct,
// non-empty names, then rows of cells, RFC 4180 quoting ("a,b" and "") for the text fields that
// need it (policy specs may hold commas). Numbers are parsed with std::from_chars: locale-free and
// exact round trips of what CsvRow printed. Every error reads `path:line: what`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sparksim {

class CsvTable {
 public:
  // Parses `text`, read from `path` (for messages). Throws InputError(`path:line: ...`) for a row
  // whose cell count differs from the header's, an unterminated quote, or an empty or repeated
  // column name; an empty text has no header and is an error too.
  static CsvTable parse(std::string_view text, std::string path);
  // Reads and parses the file at `path`; a file that cannot be read is InputError(`path: ...`).
  static CsvTable load(const std::string& path);

  const std::vector<std::string>& header() const { return header_; }
  std::size_t rows() const { return rows_.size(); }
  // Index of column `name`; throws InputError(`path:1: no column 'name'; the header has: ...`).
  std::size_t column(std::string_view name) const;
  bool has_column(std::string_view name) const;

  const std::string& cell(std::size_t row, std::size_t column) const;
  // The cell as a finite double (an empty cell is an error unless `empty_ok`, which gives NaN).
  double number(std::size_t row, std::size_t column, bool empty_ok = false) const;
  std::int64_t integer(std::size_t row, std::size_t column) const;
  // integer(), required to lie in [lo, hi] (else InputError at the row's line, naming the column).
  std::int64_t integer_in(std::size_t row, std::size_t column, std::int64_t lo,
                          std::int64_t hi) const;
  // Throws InputError(`path:line: what`) at data row `row`.
  [[noreturn]] void fail(std::size_t row, const std::string& what) const;
  // The row's text exactly as it appeared in the file, without its line end.
  std::string_view raw_row(std::size_t row) const {
    return std::string_view(text_).substr(raw_[row].first, raw_[row].second);
  }
  // 1-based line of a data row in the file.
  std::int64_t line_of(std::size_t row) const { return lines_[row]; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::pair<std::size_t, std::size_t>> raw_;  // (offset, length) in text_
  std::vector<std::int64_t> lines_;
  std::string text_;
};

// `value` as one CSV cell: quoted (with "" for quotes) when it holds a comma, quote or newline.
std::string csv_cell(std::string_view value);

}  // namespace sparksim
