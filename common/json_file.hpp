// JsonFile: a JSON document kept together with its source text, so that every problem found while
// reading it (a syntax error, or a missing, mistyped or out-of-range value found later) is reported
// as InputError `path:line: what`, pointing at the line of the offending key. Profiles use it now;
// experiment configs will too. Also: a pretty printer that keeps numeric arrays on few lines, and
// an atomic writer (temporary name, then rename).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace sparksim {

// Inclusive bounds for a number, optionally excluding the minimum (for "must be > 0").
struct NumberRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;

  static NumberRange positive() { return {0.0, std::numeric_limits<double>::infinity(), true}; }
  static NumberRange at_least(double lo) { return {lo, std::numeric_limits<double>::infinity()}; }
  static NumberRange between(double lo, double hi) { return {lo, hi}; }
  bool contains(double x) const { return (min_exclusive ? x > min : x >= min) && x <= max; }
  // "> 0", ">= 1", "in [0, 1]": the tail of an error message ("must be ...").
  std::string describe() const;
};

class JsonFile {
 public:
  using Pointer = nlohmann::json::json_pointer;

  // Reads and parses `path`. Throws InputError `path: cannot open ...` or, for malformed JSON,
  // `path:line: invalid JSON (column c): ...` with the line of the offending byte.
  static JsonFile load(const std::string& path);
  // Parses `text` as if read from `path` (embedded documents, tests). Same errors as load().
  static JsonFile parse(std::string text, std::string path);
  // Wraps an in-memory document; errors then carry the lines of its 2-space-indented dump.
  static JsonFile from_json(const nlohmann::json& document, std::string path);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  const nlohmann::json& root() const { return root_; }

  // 1-based line of the value at `ptr`: the line of its key (object member) or of its first
  // character (array element). When `ptr` does not exist, the line of its deepest existing
  // ancestor (so a missing field points at the object that lacks it); the root is line 1.
  std::int64_t line_of(const Pointer& ptr) const;
  // Throws InputError(path, line_of(ptr), what).
  [[noreturn]] void fail(const Pointer& ptr, const std::string& what) const;
  // `verify.dense_us[3]`: the dotted name of `ptr` used in messages; "the document" for the root.
  std::string name_of(const Pointer& ptr) const;

  bool has(const Pointer& ptr) const;
  // Checked access: each throws InputError at the key's line, naming the field and what it should
  // be (`memory.hbm_bytes is "80GB"; must be a number`, `verify.fixed_us is missing`).
  const nlohmann::json& at(const Pointer& ptr) const;
  const nlohmann::json& get_object(const Pointer& ptr) const;
  const nlohmann::json& get_array(const Pointer& ptr) const;
  double get_number(const Pointer& ptr, const NumberRange& range = {}) const;  // finite
  std::int64_t get_int(const Pointer& ptr, std::int64_t min, std::int64_t max) const;
  bool get_bool(const Pointer& ptr) const;
  std::string get_string(const Pointer& ptr, bool allow_empty = false) const;
  std::vector<double> get_number_array(const Pointer& ptr, const NumberRange& range = {},
                                       std::size_t min_size = 0) const;
  std::vector<std::int64_t> get_int_array(const Pointer& ptr, std::int64_t min, std::int64_t max,
                                          std::size_t min_size = 0) const;

  // Throws at the line of the first member of the object at `ptr` whose key is not in `allowed`
  // (typo protection), listing the valid keys.
  void reject_unknown_keys(const Pointer& ptr,
                           std::initializer_list<std::string_view> allowed) const;

 private:
  JsonFile(std::string text, std::string path, nlohmann::json root);

  std::string text_;
  std::string path_;
  nlohmann::json root_;
};

// A number as messages show it: integral values without a decimal point ("950", not "950.0"),
// others in the shortest form that reads back exactly.
std::string format_number(double x);

// Pretty JSON: 2-space indentation, object keys in the document's order, and arrays of scalars
// packed onto lines of at most `width` columns (numeric tables stay readable and diffable).
// Numbers print in nlohmann's shortest round-trip form. Ends with a newline.
std::string format_json(const nlohmann::ordered_json& document, int width = 100);

// Writes `text` to `path` through a temporary file in the same directory, then renames it, so a
// reader never sees a half-written file. Throws InputError when the directory cannot be written,
// std::runtime_error when writing fails midway (the temporary file is removed).
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace sparksim
