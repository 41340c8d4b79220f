// MeasuredCsv: a comma-separated table with one header row (the measured kernel-latency databases'
// format), read whole into memory. Cells are addressed by row and column name; every parse error
// reads `path:line: what`, so a malformed row stops the program before any work starts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sparksim {

class MeasuredCsv {
 public:
  // Throws InputError(path, line, ...) for an unreadable file, an empty header, a duplicate or
  // empty column name, a quoted field (these tables never quote), or a row whose field count
  // differs from the header's.
  static MeasuredCsv load(const std::string& path);
  static MeasuredCsv parse(std::string_view text, std::string path);

  const std::string& path() const { return path_; }
  std::size_t rows() const { return cells_.size(); }
  // Index of a column; InputError(path:1) naming the columns present when it is missing.
  std::size_t column(const std::string& name) const;
  const std::string& text(std::size_t row, std::size_t column) const { return cells_[row][column]; }
  // A finite number; InputError at the row's line naming the column and the bad text.
  double number(std::size_t row, std::size_t column) const;
  // An integer in [min, max]; InputError at the row's line otherwise.
  std::int64_t integer(std::size_t row, std::size_t column, std::int64_t min,
                       std::int64_t max) const;
  std::int64_t line(std::size_t row) const { return lines_[row]; }
  [[noreturn]] void fail(std::size_t row, const std::string& what) const;

 private:
  std::string path_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> cells_;
  std::vector<std::int64_t> lines_;  // 1-based file line of each row (the header is line 1)
};

}  // namespace sparksim
