// Whole-file reading and line iteration shared by the trace loaders. Trace files are a few MB, so
// reading them at once is both simplest and fastest; the cursor yields 1-based line numbers for
// `path:line:` errors and accepts LF or CRLF ends and a last line without a newline.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sparksim {

// The file's bytes. Throws InputError(`path: cannot open`) for a missing, unreadable or directory
// path, and (`path: file is empty`) for a zero-byte file, which no format accepts.
std::string read_text_file(const std::string& path);

// Walks `text` (which must outlive the cursor) one line at a time.
class LineCursor {
 public:
  // Skips a leading UTF-8 byte-order mark: spreadsheet exports add one and it is not data.
  explicit LineCursor(std::string_view text);

  // Sets `line` to the next line without its "\n" or "\r\n" and returns true; false at the end.
  // A file ending in a newline has no extra empty line after it.
  bool next(std::string_view& line);

  // Like next(), but skips empty lines (counted in empty_lines()): a data row or false at the end.
  bool next_row(std::string_view& line);
  std::int64_t empty_lines() const { return empty_lines_; }

  // 1-based number of the line last returned by next() (0 before the first call).
  std::int64_t line_number() const { return line_number_; }

 private:
  std::string_view rest_;
  std::int64_t line_number_ = 0;
  std::int64_t empty_lines_ = 0;
};

// The first line of a format with a header, which `is_header` must accept; otherwise
// InputError "path:1: header '<line>' is not <expected>".
std::string_view read_header(LineCursor& cursor, const std::string& path,
                             bool (*is_header)(std::string_view), const std::string& expected);

// Splits on every `separator` (no quoting: no trace format here has quoted fields), reusing
// `fields`' storage. An empty line gives one empty field.
void split_fields(std::string_view line, char separator, std::vector<std::string_view>& fields);

// Shortens long text for quoting in an error message, so one corrupt line cannot flood the log.
std::string quote_for_message(std::string_view text);

}  // namespace sparksim
