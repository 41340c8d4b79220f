// JsonFile: every error names the file and the line of the offending key (or, for a missing key,
// of the object that lacks it), parse errors included; format_json packs scalar arrays and
// round-trips; write_file_atomically leaves no temporary behind.
#include "common/json_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "tests/common/input_error_message.hpp"

namespace sparksim {
namespace {

using testing::error_of;
using Pointer = JsonFile::Pointer;

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("sparksim_json_file_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Two objects with the same inner key: a scanner that merely searched for the key's text would
// report `second.size` for a problem in `first`.
const std::string kDoc = R"({
  "first": {
    "name": "a"
  },
  "second": {
    "name": "b",
    "size": 3
  },
  "table": [1,
    2,
    "x"],
  "weird \"key\"": {"inner": true},
  "scalar": 4
})";

TEST_CASE("JsonFile reports malformed JSON at the line of the offending byte") {
  const std::string text = "{\n  \"a\": 1,\n  \"b\": tru\n}\n";
  const std::string e = error_of([&] { JsonFile::parse(text, "cfg.json"); });
  CHECK(starts_with(e, "cfg.json:3: invalid JSON (column "));
  CHECK(e.find("json.exception") == std::string::npos);  // nlohmann's prefix is dropped

  // A missing comma is noticed at the next key (the column is where that token ends).
  const std::string e2 = error_of([] { JsonFile::parse("{\n\"a\": 1\n\"b\": 2}", "x.json"); });
  CHECK(starts_with(e2, "x.json:3: invalid JSON (column 3): syntax error while parsing object"));

  CHECK(starts_with(error_of([] { JsonFile::parse("", "empty.json"); }), "empty.json:1: "));
}

TEST_CASE("JsonFile::load reports an unreadable file without a line") {
  const std::string e = error_of([] { JsonFile::load("/nonexistent/dir/p.json"); });
  CHECK(starts_with(e, "/nonexistent/dir/p.json: cannot open"));
}

TEST_CASE("JsonFile locates keys structurally, not by text search") {
  const JsonFile f = JsonFile::parse(kDoc, "doc.json");
  CHECK(f.line_of(Pointer("")) == 1);
  CHECK(f.line_of(Pointer("/first/name")) == 3);
  CHECK(f.line_of(Pointer("/second/name")) == 6);
  CHECK(f.line_of(Pointer("/second/size")) == 7);
  // Missing: the line of the deepest existing ancestor (the object lacking the key).
  CHECK(f.line_of(Pointer("/first/size")) == 2);
  CHECK(f.line_of(Pointer("/nope/deeper")) == 1);
  // Array elements: the line where the element starts.
  CHECK(f.line_of(Pointer("/table/0")) == 9);
  CHECK(f.line_of(Pointer("/table/2")) == 11);
  CHECK(f.line_of(Pointer("/table/7")) == 9);
  // Escaped quotes inside keys are unescaped before comparing.
  CHECK(f.line_of(Pointer("/weird \"key\"/inner")) == 12);
  CHECK(f.line_of(Pointer("/scalar")) == 13);
}

TEST_CASE("JsonFile getters name the field and what it must be") {
  const JsonFile f = JsonFile::parse(kDoc, "doc.json");
  CHECK(error_of([&] { f.get_number(Pointer("/first/size")); }) ==
        "doc.json:2: first.size is missing");
  CHECK(error_of([&] { f.get_number(Pointer("/first/name")); }) ==
        "doc.json:3: first.name is \"a\"; must be a number");
  CHECK(error_of([&] { f.get_number(Pointer("/second/size"), NumberRange::between(0, 1)); }) ==
        "doc.json:7: second.size is 3; must be in [0, 1]");
  CHECK(error_of([&] {
          f.get_number(Pointer("/scalar"), {4.0, 10.0, true});
        }) == "doc.json:13: scalar is 4; must be > 4 and <= 10");
  CHECK(error_of([&] { f.get_int_array(Pointer("/table"), 0, 10); }) ==
        "doc.json:11: table[2] is \"x\"; must be an integer in [0, 10]");
  CHECK(error_of([&] { f.get_string(Pointer("/scalar/x")); }) ==
        "doc.json:13: scalar is 4; must be an object");
  CHECK(error_of([&] { f.get_object(Pointer("/table")); }) ==
        "doc.json:9: table is an array; must be an object");
  CHECK(error_of([&] { f.get_bool(Pointer("/second/name")); }) ==
        "doc.json:6: second.name is \"b\"; must be true or false");

  CHECK(f.get_number(Pointer("/second/size"), NumberRange::positive()) == 3.0);
  CHECK(f.get_int(Pointer("/second/size"), 1, 3) == 3);
  CHECK(f.get_string(Pointer("/first/name")) == "a");
  CHECK(f.get_bool(Pointer("/weird \"key\"/inner")));
  CHECK(f.name_of(Pointer("/table/2")) == "table[2]");
  CHECK(f.name_of(Pointer("")) == "the document");
}

TEST_CASE("JsonFile::get_int rejects fractions and out-of-range integers") {
  const JsonFile f =
      JsonFile::parse("{\"a\": 2.5, \"b\": -1, \"c\": 18446744073709551615}", "n.json");
  CHECK(error_of([&] { f.get_int(Pointer("/a"), 0, 9); }) ==
        "n.json:1: a is 2.5; must be an integer in [0, 9]");
  CHECK(error_of([&] { f.get_int(Pointer("/b"), 0, std::numeric_limits<std::int64_t>::max()); }) ==
        "n.json:1: b is -1; must be >= 0");
  CHECK(starts_with(error_of([&] { f.get_int(Pointer("/c"), 0, 9); }), "n.json:1: c is "));
}

TEST_CASE("JsonFile::reject_unknown_keys points at the unknown key") {
  const JsonFile f = JsonFile::parse(kDoc, "doc.json");
  CHECK(error_of([&] { f.reject_unknown_keys(Pointer("/second"), {"name"}); }) ==
        "doc.json:7: unknown key 'size' in second; valid keys: name");
  CHECK_NOTHROW(f.reject_unknown_keys(Pointer("/second"), {"name", "size"}));
}

TEST_CASE("JsonFile::from_json reports lines of the document's dump") {
  const nlohmann::json doc = {{"a", {{"b", "text"}}}};
  const JsonFile f = JsonFile::from_json(doc, "<memory>");
  CHECK(error_of([&] { f.get_number(Pointer("/a/b")); }) ==
        "<memory>:3: a.b is \"text\"; must be a number");
}

TEST_CASE("format_json packs scalar arrays within the width and round-trips") {
  nlohmann::ordered_json doc;
  doc["name"] = "x";
  doc["short"] = {1, 2, 3};
  nlohmann::ordered_json long_array = nlohmann::ordered_json::array();
  for (int i = 0; i < 100; ++i) long_array.push_back(1000.5 + i);
  doc["long"] = long_array;
  doc["nested"] = {{"objects", {{{"k", 1}}, {{"k", 2}}}}, {"flag", true}, {"whole", 5.0}};
  const std::string text = format_json(doc, 60);

  CHECK(text.find("\"short\": [1, 2, 3]") != std::string::npos);
  CHECK(text.find("\"whole\": 5.0") != std::string::npos);  // a double stays a double
  std::istringstream lines(text);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    CHECK(line.size() <= 60);
    ++count;
  }
  CHECK(count > 10);  // the long array wrapped
  CHECK(count < 40);  // ... several numbers per line, not one each
  CHECK(nlohmann::ordered_json::parse(text) == doc);
  CHECK(text.substr(0, 12) == "{\n  \"name\": ");  // document order kept
}

TEST_CASE("write_file_atomically replaces the file and leaves no temporary") {
  const auto dir = fresh_dir("atomic");
  const std::string path = (dir / "out.json").string();
  write_file_atomically(path, "first\n");
  write_file_atomically(path, "second\n");
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(content == "second\n");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  CHECK(files == 1);
  CHECK(starts_with(error_of([&] { write_file_atomically((dir / "no/such/x.json").string(), ""); }),
                    (dir / "no/such/x.json").string() + ": cannot create"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a number too large for a double is an input error at its line") {
  // Found by fuzzing the Mooncake loader; JsonFile had the same gap (out_of_range escaped).
  const std::string e =
      error_of([] { JsonFile::parse("{\n  \"a\": 1,\n  \"b\": 1e999\n}", "n.json"); });
  CHECK_THAT(e, Catch::Contains("n.json:3: invalid JSON: number overflow parsing '1e999'"));
}

}  // namespace
}  // namespace sparksim
