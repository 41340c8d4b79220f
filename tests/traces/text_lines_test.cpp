// Line iteration and field parsing shared by the loaders: line ends, numbering, strict numbers.
#include "traces/text_lines.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "traces/field_parsing.hpp"

namespace sparksim {
namespace {

std::vector<std::string> lines_of(std::string_view text) {
  LineCursor cursor(text);
  std::vector<std::string> lines;
  std::string_view line;
  while (cursor.next(line)) {
    lines.emplace_back(line);
    REQUIRE(cursor.line_number() == static_cast<std::int64_t>(lines.size()));
  }
  return lines;
}

TEST_CASE("LineCursor handles LF, CRLF, a missing final newline and a BOM", "[traces][lines]") {
  using V = std::vector<std::string>;
  CHECK(lines_of("a\nb\n") == V{"a", "b"});
  CHECK(lines_of("a\r\nb") == V{"a", "b"});
  CHECK(lines_of("a\r\n\r\nb\r\n") == V{"a", "", "b"});
  CHECK(lines_of("\xEF\xBB\xBFh\n1") == V{"h", "1"});
  CHECK(lines_of("a\rb\n") == V{"a\rb"});  // a lone CR is data, not a line end
  CHECK(lines_of("") == V{});
}

TEST_CASE("split_fields keeps empty fields", "[traces][lines]") {
  std::vector<std::string_view> fields;
  split_fields("a,,b,", ',', fields);
  CHECK(fields == std::vector<std::string_view>{"a", "", "b", ""});
  split_fields("", ',', fields);
  CHECK(fields == std::vector<std::string_view>{""});
}

TEST_CASE("strict number parsing", "[traces][lines]") {
  std::int64_t i = 0;
  CHECK(parse_int64("42", i));
  CHECK(i == 42);
  CHECK(parse_int64("-7", i));
  CHECK(i == -7);
  CHECK_FALSE(parse_int64("+7", i));
  CHECK_FALSE(parse_int64(" 7", i));
  CHECK_FALSE(parse_int64("7 ", i));
  CHECK_FALSE(parse_int64("1e3", i));
  CHECK_FALSE(parse_int64("", i));
  CHECK_FALSE(parse_int64("9223372036854775808", i));
  double d = 0;
  CHECK(parse_double("1.5e-3", d));
  CHECK(d == 0.0015);
  CHECK(parse_double("nan", d));
  CHECK(std::isnan(d));
  CHECK_FALSE(parse_double("1.5s", d));
  CHECK_FALSE(parse_double("0x10", d));
  CHECK_FALSE(parse_double("", d));
}

TEST_CASE("quote_for_message shortens long text", "[traces][lines]") {
  CHECK(quote_for_message("abc") == "'abc'");
  CHECK(quote_for_message(std::string(100, 'x')) == "'" + std::string(80, 'x') + "...'");
}

}  // namespace
}  // namespace sparksim
