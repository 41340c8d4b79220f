// JsonFile: parsing with line-numbered errors, checked typed getters, and the source-text scanner
// that maps a JSON pointer back to the line of its key. The scanner runs only when an error is
// reported, so loading a valid file costs one nlohmann parse and nothing more.
#include "common/json_file.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/input_error.hpp"

namespace sparksim {

namespace {

using Json = nlohmann::json;

// A value as it appears in messages: scalars verbatim (long strings cut), containers by kind.
std::string brief(const Json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

// Splits "/a/b~1c/0" into {"a", "b/c", "0"} (RFC 6901 unescaping).
std::vector<std::string> pointer_tokens(const JsonFile::Pointer& ptr) {
  std::vector<std::string> tokens;
  const std::string s = ptr.to_string();
  std::size_t pos = 0;
  while (pos < s.size()) {
    const std::size_t next = s.find('/', pos + 1);
    std::string token =
        s.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
    std::string unescaped;
    for (std::size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size()) {
        unescaped += token[i + 1] == '1' ? '/' : '~';
        ++i;
      } else {
        unescaped += token[i];
      }
    }
    tokens.push_back(std::move(unescaped));
    pos = next == std::string::npos ? s.size() : next;
  }
  return tokens;
}

bool parse_index(const std::string& token, std::size_t& index) {
  if (token.empty() || token.size() > 18) return false;
  index = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
    index = index * 10 + static_cast<std::size_t>(c - '0');
  }
  return true;
}

// Walks text that nlohmann has already accepted as JSON, so it only has to track structure:
// strings (with escapes), containers, and the newlines it passes.
class SourceScanner {
 public:
  explicit SourceScanner(const std::string& text) : s_(text) {}

  // Line of the deepest prefix of `tokens` found in the text (see JsonFile::line_of).
  std::int64_t locate(const std::vector<std::string>& tokens) {
    skip_ws();
    std::int64_t best = 1;
    for (const std::string& token : tokens) {
      if (pos_ >= s_.size()) return best;
      bool found = false;
      if (s_[pos_] == '{') {
        found = seek_entry('}', [&](std::size_t) {
          const std::int64_t key_line = line_;
          const std::string key = read_key();
          skip_ws();
          ++pos_;  // ':'
          skip_ws();
          if (key != token) return false;
          best = key_line;
          return true;
        });
      } else if (s_[pos_] == '[') {
        std::size_t wanted = 0;
        if (!parse_index(token, wanted)) return best;
        found = seek_entry(']', [&](std::size_t i) {
          if (i != wanted) return false;
          best = line_;
          return true;
        });
      }
      if (!found) return best;
    }
    return best;
  }

 private:
  // At the opening bracket of a container that `close` ends: walks its entries, calling
  // is_wanted(index) at the start of each, and stops at the first it accepts (true) or at the end
  // of the container (false). is_wanted may consume the entry's key.
  template <typename IsWanted>
  bool seek_entry(char close, IsWanted is_wanted) {
    ++pos_;
    for (std::size_t i = 0;; ++i) {
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] == close) return false;
      if (is_wanted(i)) return true;
      skip_value();
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == ',') ++pos_;
    }
  }

  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r' || s_[pos_] == '\n')) {
      if (s_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }

  // At an opening quote: returns the raw contents and moves past the closing quote.
  std::string read_raw_string() {
    const std::size_t start = ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') pos_ += s_[pos_] == '\\' ? 2 : 1;
    std::string raw = s_.substr(start, pos_ - start);
    ++pos_;
    return raw;
  }

  std::string read_key() {
    std::string raw = read_raw_string();
    if (raw.find('\\') == std::string::npos) return raw;
    return Json::parse("\"" + raw + "\"").get<std::string>();
  }

  void skip_value() {
    if (pos_ >= s_.size()) return;
    const char c = s_[pos_];
    if (c == '"') {
      read_raw_string();
    } else if (c == '{' || c == '[') {
      int depth = 0;
      while (pos_ < s_.size()) {
        const char d = s_[pos_];
        if (d == '"') {
          read_raw_string();
          continue;
        }
        if (d == '\n') ++line_;
        if (d == '{' || d == '[') ++depth;
        if (d == '}' || d == ']') --depth;
        ++pos_;
        if (depth == 0) return;
      }
    } else {
      while (pos_ < s_.size() && std::strchr(",}] \t\r\n", s_[pos_]) == nullptr) ++pos_;
    }
  }

  const std::string& s_;
  std::size_t pos_ = 0;
  std::int64_t line_ = 1;
};

// nlohmann reports the byte count read when it failed; the offending character is the last one.
[[noreturn]] void throw_parse_error(const Json::parse_error& e, const std::string& text,
                                    const std::string& path) {
  const std::size_t offset = std::min<std::size_t>(e.byte, text.size());
  const std::size_t failed_at = offset > 0 ? offset - 1 : 0;
  std::int64_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < failed_at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  const std::size_t column = failed_at - line_start + 1;
  // Drop nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: " prefix.
  std::string what = e.what();
  const std::size_t lead = what.find("parse error");
  if (lead != std::string::npos) {
    const std::size_t colon = what.find(": ", lead);
    if (colon != std::string::npos) what = what.substr(colon + 2);
  }
  throw InputError(path, line, "invalid JSON (column " + std::to_string(column) + "): " + what);
}

// A number too large for a double ("1e999") is valid JSON syntax that nlohmann refuses with
// out_of_range and no byte offset; the line is that of the first occurrence of the token.
[[noreturn]] void throw_number_overflow(const Json::out_of_range& e, const std::string& text,
                                        const std::string& path) {
  std::string what = e.what();
  const std::size_t tag_end = what.find("] ");
  if (tag_end != std::string::npos) what = what.substr(tag_end + 2);
  std::int64_t line = 0;
  const std::size_t open = what.find('\'');
  const std::size_t close = what.rfind('\'');
  if (open != std::string::npos && close > open + 1) {
    const std::size_t at = text.find(what.substr(open + 1, close - open - 1));
    if (at != std::string::npos) {
      line = 1 + static_cast<std::int64_t>(std::count(text.begin(), text.begin() + at, '\n'));
    }
  }
  throw InputError(path, line, "invalid JSON: " + what);
}

}  // namespace

std::string format_number(double x) {
  if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e15) {
    return std::to_string(static_cast<long long>(x));
  }
  if (!std::isfinite(x)) return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  return std::string(buffer, result.ptr);
}

std::string NumberRange::describe() const {
  const bool has_min = std::isfinite(min);
  const bool has_max = std::isfinite(max);
  if (has_min && has_max && !min_exclusive) {
    return "in [" + format_number(min) + ", " + format_number(max) + "]";
  }
  std::string out;
  if (has_min) out += (min_exclusive ? "> " : ">= ") + format_number(min);
  if (has_max) out += (has_min ? " and <= " : "<= ") + format_number(max);
  return out.empty() ? "finite" : out;
}

JsonFile::JsonFile(std::string text, std::string path, nlohmann::json root)
    : text_(std::move(text)), path_(std::move(path)), root_(std::move(root)) {}

JsonFile JsonFile::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, "cannot read");
  return parse(buffer.str(), path);
}

JsonFile JsonFile::parse(std::string text, std::string path) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw_parse_error(e, text, path);
  } catch (const Json::out_of_range& e) {
    throw_number_overflow(e, text, path);
  }
  return JsonFile(std::move(text), std::move(path), std::move(root));
}

JsonFile JsonFile::from_json(const nlohmann::json& document, std::string path) {
  return JsonFile(document.dump(2), std::move(path), document);
}

std::int64_t JsonFile::line_of(const Pointer& ptr) const {
  return SourceScanner(text_).locate(pointer_tokens(ptr));
}

void JsonFile::fail(const Pointer& ptr, const std::string& what) const {
  throw InputError(path_, line_of(ptr), what);
}

std::string JsonFile::name_of(const Pointer& ptr) const {
  const std::vector<std::string> tokens = pointer_tokens(ptr);
  if (tokens.empty()) return "the document";
  std::string name;
  const Json* node = &root_;
  for (const std::string& token : tokens) {
    std::size_t index = 0;
    if (node != nullptr && node->is_array() && parse_index(token, index)) {
      name += "[" + token + "]";
      node = index < node->size() ? &(*node)[index] : nullptr;
    } else {
      name += (name.empty() ? "" : ".") + token;
      const bool has = node != nullptr && node->is_object() && node->contains(token);
      node = has ? &(*node)[token] : nullptr;
    }
  }
  return name;
}

bool JsonFile::has(const Pointer& ptr) const {
  return root_.contains(ptr);
}

const nlohmann::json& JsonFile::at(const Pointer& ptr) const {
  if (!ptr.empty()) {
    // A parent that is not a container makes the field unreachable; say what the parent is.
    const Pointer parent = ptr.parent_pointer();
    if (!parent.empty() || !root_.is_structured()) {
      const Json& p = at(parent);
      if (!p.is_structured()) {
        fail(parent, name_of(parent) + " is " + brief(p) + "; must be an object");
      }
    }
  }
  if (!root_.contains(ptr)) fail(ptr, name_of(ptr) + " is missing");
  return root_.at(ptr);
}

const nlohmann::json& JsonFile::get_object(const Pointer& ptr) const {
  const Json& v = at(ptr);
  if (!v.is_object()) fail(ptr, name_of(ptr) + " is " + brief(v) + "; must be an object");
  return v;
}

const nlohmann::json& JsonFile::get_array(const Pointer& ptr) const {
  const Json& v = at(ptr);
  if (!v.is_array()) fail(ptr, name_of(ptr) + " is " + brief(v) + "; must be an array");
  return v;
}

double JsonFile::get_number(const Pointer& ptr, const NumberRange& range) const {
  const Json& v = at(ptr);
  if (!v.is_number()) fail(ptr, name_of(ptr) + " is " + brief(v) + "; must be a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || !range.contains(x)) {
    fail(ptr, name_of(ptr) + " is " + brief(v) + "; must be " + range.describe());
  }
  return x;
}

std::int64_t JsonFile::get_int(const Pointer& ptr, std::int64_t min, std::int64_t max) const {
  const Json& v = at(ptr);
  const auto range_text = [&] {
    if (max == std::numeric_limits<std::int64_t>::max()) return ">= " + std::to_string(min);
    return "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  };
  if (v.is_number_unsigned() &&
      v.get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    fail(ptr, name_of(ptr) + " is " + brief(v) + "; must be an integer " + range_text());
  }
  if (!v.is_number_integer()) {
    fail(ptr, name_of(ptr) + " is " + brief(v) + "; must be an integer " + range_text());
  }
  const std::int64_t x = v.get<std::int64_t>();
  if (x < min || x > max) {
    fail(ptr, name_of(ptr) + " is " + brief(v) + "; must be " + range_text());
  }
  return x;
}

bool JsonFile::get_bool(const Pointer& ptr) const {
  const Json& v = at(ptr);
  if (!v.is_boolean()) {
    fail(ptr, name_of(ptr) + " is " + brief(v) + "; must be true or false");
  }
  return v.get<bool>();
}

std::string JsonFile::get_string(const Pointer& ptr, bool allow_empty) const {
  const Json& v = at(ptr);
  if (!v.is_string()) fail(ptr, name_of(ptr) + " is " + brief(v) + "; must be a string");
  std::string s = v.get<std::string>();
  if (s.empty() && !allow_empty) fail(ptr, name_of(ptr) + " is empty; must be a non-empty string");
  return s;
}

std::vector<double> JsonFile::get_number_array(const Pointer& ptr, const NumberRange& range,
                                               std::size_t min_size) const {
  const Json& a = get_array(ptr);
  if (a.size() < min_size) {
    fail(ptr, name_of(ptr) + " has " + std::to_string(a.size()) + " entries; must have at least " +
                  std::to_string(min_size));
  }
  std::vector<double> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(get_number(ptr / i, range));
  return out;
}

std::vector<std::int64_t> JsonFile::get_int_array(const Pointer& ptr, std::int64_t min,
                                                  std::int64_t max, std::size_t min_size) const {
  const Json& a = get_array(ptr);
  if (a.size() < min_size) {
    fail(ptr, name_of(ptr) + " has " + std::to_string(a.size()) + " entries; must have at least " +
                  std::to_string(min_size));
  }
  std::vector<std::int64_t> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(get_int(ptr / i, min, max));
  return out;
}

void JsonFile::reject_unknown_keys(const Pointer& ptr,
                                   std::initializer_list<std::string_view> allowed) const {
  const Json& object = get_object(ptr);
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (std::string_view a : allowed) known = known || key == a;
    if (known) continue;
    std::string valid;
    for (std::string_view a : allowed) valid += (valid.empty() ? "" : ", ") + std::string(a);
    const std::string where = ptr.empty() ? "" : " in " + name_of(ptr);
    fail(ptr / key, "unknown key '" + key + "'" + where + "; valid keys: " + valid);
  }
}

namespace {

// Doubles in their shortest round-trip form (std::to_chars; nlohmann's Grisu2 is not always
// shortest), keeping a ".0" so they read back as floating point; everything else as nlohmann
// writes it.
std::string scalar_text(const nlohmann::ordered_json& v) {
  if (!v.is_number_float()) return v.dump();
  const double x = v.get<double>();
  if (!std::isfinite(x)) return "null";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

void format_value(const nlohmann::ordered_json& v, std::size_t indent, std::size_t column,
                  int width, std::string& out) {
  const std::string pad(indent, ' ');
  const std::string inner(indent + 2, ' ');
  if (v.is_object() && !v.empty()) {
    out += "{\n";
    std::size_t i = 0;
    for (const auto& [key, value] : v.items()) {
      const std::string key_text = nlohmann::ordered_json(key).dump() + ": ";
      out += inner + key_text;
      format_value(value, indent + 2, indent + 2 + key_text.size(), width, out);
      out += ++i < v.size() ? ",\n" : "\n";
    }
    out += pad + "}";
    return;
  }
  if (v.is_array() && !v.empty()) {
    bool scalars = true;
    std::vector<std::string> items;
    for (const auto& e : v) {
      scalars = scalars && !e.is_structured();
      if (scalars) items.push_back(scalar_text(e));
    }
    if (scalars) {
      std::string one_line = "[";
      for (std::size_t i = 0; i < items.size(); ++i) one_line += (i ? ", " : "") + items[i];
      one_line += "]";
      if (column + one_line.size() + 1 <= static_cast<std::size_t>(width)) {
        out += one_line;
        return;
      }
      // Packed: as many items per line as fit, each line ending in a comma but the last.
      out += "[\n";
      std::string line = inner;
      for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string piece = items[i] + (i + 1 < items.size() ? "," : "");
        if (line.size() > inner.size() &&
            line.size() + 1 + piece.size() > static_cast<std::size_t>(width)) {
          out += line + "\n";
          line = inner;
        }
        line += (line.size() > inner.size() ? " " : "") + piece;
      }
      out += line + "\n" + pad + "]";
      return;
    }
    out += "[\n";
    for (std::size_t i = 0; i < v.size(); ++i) {
      out += inner;
      format_value(v[i], indent + 2, indent + 2, width, out);
      out += i + 1 < v.size() ? ",\n" : "\n";
    }
    out += pad + "]";
    return;
  }
  out += scalar_text(v);
}

}  // namespace

std::string format_json(const nlohmann::ordered_json& document, int width) {
  std::string out;
  format_value(document, 0, 0, width, out);
  out += "\n";
  return out;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  std::string temp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    throw InputError(path, 0,
                     std::string("cannot create a file next to it: ") + std::strerror(errno));
  }
  // mkstemp creates 0600; data files are meant to be shared like any other output.
  ::fchmod(fd, 0644);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      ::unlink(temp.c_str());
      throw std::runtime_error(path + ": write failed: " + reason);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 || std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temp.c_str());
    throw std::runtime_error(path + ": cannot finish writing: " + reason);
  }
}

}  // namespace sparksim
