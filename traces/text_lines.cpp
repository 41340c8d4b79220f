// Whole-file reading, line iteration and field splitting for the trace loaders.
#include "traces/text_lines.hpp"

#include "common/input_error.hpp"
#include "common/text_file.hpp"

namespace sparksim {

std::string read_text_file(const std::string& path) {
  std::string text = read_file_bytes(path);
  if (text.empty()) throw InputError(path, 0, "file is empty");
  return text;
}

LineCursor::LineCursor(std::string_view text) : rest_(text) {
  constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
  if (rest_.starts_with(kUtf8Bom)) rest_.remove_prefix(kUtf8Bom.size());
}

bool LineCursor::next(std::string_view& line) {
  if (rest_.empty()) return false;
  const std::size_t end = rest_.find('\n');
  if (end == std::string_view::npos) {
    line = rest_;
    rest_ = {};
  } else {
    line = rest_.substr(0, end);
    rest_.remove_prefix(end + 1);
  }
  if (line.ends_with('\r')) line.remove_suffix(1);
  ++line_number_;
  return true;
}

bool LineCursor::next_row(std::string_view& line) {
  while (next(line)) {
    if (!line.empty()) return true;
    ++empty_lines_;
  }
  return false;
}

void split_fields(std::string_view line, char separator, std::vector<std::string_view>& fields) {
  fields.clear();
  std::size_t start = 0;
  while (true) {
    const std::size_t end = line.find(separator, start);
    if (end == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return;
    }
    fields.push_back(line.substr(start, end - start));
    start = end + 1;
  }
}

std::string quote_for_message(std::string_view text) {
  constexpr std::size_t kMaxQuoted = 80;
  // Built with append: GCC 12's -Wrestrict misfires on `"'" + std::string(...)` (GCC PR 105329).
  std::string quoted = "'";
  quoted.append(text.substr(0, kMaxQuoted));
  if (text.size() > kMaxQuoted) quoted.append("...");
  quoted.push_back('\'');
  return quoted;
}

std::string_view read_header(LineCursor& cursor, const std::string& path,
                             bool (*is_header)(std::string_view), const std::string& expected) {
  std::string_view line;
  cursor.next(line);
  if (!is_header(line)) {
    throw InputError(path, 1, "header " + quote_for_message(line) + " is not " + expected);
  }
  return line;
}

}  // namespace sparksim
