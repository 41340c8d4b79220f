// Profile loading and writing: a valid file loads with every field, a write/load round trip is
// lossless and byte-stable, and each kind of bad profile fails with `path:line:` at the right line.
#include "profiles/profile_io.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "tests/profiles/profile_fixture.hpp"

namespace sparksim {
namespace {

using testing::error_of;
using testing::kFixtureProfile;
using testing::line_containing;

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Loads `text` from a file and returns the error message; `line` is where it must point.
struct BadProfile {
  std::string message;
  std::string expected_prefix;
};

BadProfile load_bad(const std::string& name, const std::string& text, std::int64_t line) {
  const auto dir = testing::fresh_dir("bad_" + name);
  const std::string path = testing::write_text(dir / (name + ".json"), text);
  return {error_of([&] { load_profile(path); }), path + ":" + std::to_string(line) + ": "};
}

TEST_CASE("load_profile reads every field of a valid profile") {
  const auto dir = testing::fresh_dir("valid");
  const std::string path = testing::write_text(dir / "p.json", kFixtureProfile);
  const Profile p = load_profile(path);
  CHECK(p.path == path);
  CHECK(p.provenance.source == "measured");
  CHECK(p.provenance.gpu == "test-gpu");
  CHECK(p.provenance.date == "2025-01-02");
  CHECK(p.provenance.git_sha == "abc123");
  CHECK_FALSE(p.is_analytic());
  CHECK(p.target == "tiny");
  CHECK(p.gpus == 1);
  CHECK(p.hbm_bytes == 1000);
  CHECK(p.weights_bytes == 400);
  CHECK(p.memory_utilization == 0.9);
  CHECK(p.kv_bytes_per_token == 7);
  CHECK(p.host_overhead_us == 150);
  CHECK(p.verify.graph_buckets == std::vector<std::int64_t>{1, 2, 4, 8});
  CHECK(p.verify.dense_us == std::vector<double>{100, 130, 170, 250});
  CHECK(p.verify.attention_ns_per_pair == 0.5);
  REQUIRE(p.draft[static_cast<int>(DrafterFamily::kEagle3)]);
  const DraftTimeModel& eagle3 = *p.draft[static_cast<int>(DrafterFamily::kEagle3)];
  CHECK(eagle3.fixed_us == 10);
  CHECK(eagle3.sequential_in_gamma);
  CHECK(eagle3.kv_read_per_pass);
  CHECK(eagle3.kv_read_ns_per_context_token == 0.25);
  REQUIRE(p.draft[static_cast<int>(DrafterFamily::kDspark)]);
  CHECK(p.draft[static_cast<int>(DrafterFamily::kDspark)]->per_pass_us == 40);
  CHECK(p.sps.tokens == std::vector<std::int64_t>{1, 3, 5});
  CHECK(p.sps.steps_per_s == std::vector<double>{100, 80, 50});
  CHECK(p.sps.reference == "hand-written");
}

TEST_CASE("write_profile then load_profile is lossless and the text is stable") {
  const auto dir = testing::fresh_dir("round_trip");
  const std::string in_path = testing::write_text(dir / "in.json", kFixtureProfile);
  const Profile original = load_profile(in_path);
  const std::string out_path = (dir / "out.json").string();
  write_profile(original, out_path);
  const Profile reloaded = load_profile(out_path);
  CHECK(profile_to_json(reloaded) == profile_to_json(original));
  CHECK(read_text(out_path) == format_profile(reloaded));
  // Keys come out in schema order, starting with the schema.
  CHECK(read_text(out_path).rfind("{\n  \"schema\": \"sparksim.profile/1\",\n", 0) == 0);
  // Nothing but the output is left in the directory (the temporary was renamed).
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file();
  CHECK(files == 2);
}

TEST_CASE("a profile without provenance is rejected at line 1") {
  std::string text = kFixtureProfile;
  const std::size_t from = text.find("  \"provenance\"");
  const std::size_t to = text.find("  \"target\"");
  text.erase(from, to - from);
  const BadProfile bad = load_bad("no_provenance", text, 1);
  CHECK(bad.message.rfind(bad.expected_prefix + "profile has no provenance; ", 0) == 0);
}

TEST_CASE("bad provenance values are rejected at their lines") {
  const std::string source = replaced(kFixtureProfile, "\"measured\"", "\"guessed\"");
  BadProfile bad = load_bad("source", source, 4);
  CHECK(bad.message == bad.expected_prefix +
                           "provenance.source is \"guessed\"; must be \"measured\", "
                           "\"measured-db\", \"telemetry\" or \"analytic\"");

  const std::string gpu = replaced(kFixtureProfile, "\"test-gpu\"", "\"\"");
  bad = load_bad("gpu", gpu, 5);
  CHECK(bad.message == bad.expected_prefix + "provenance.gpu is empty; must be a non-empty string");

  const std::string date = replaced(kFixtureProfile, "\"2025-01-02\"", "\"yesterday\"");
  bad = load_bad("date", date, 6);
  CHECK(bad.message.rfind(bad.expected_prefix + "provenance.date is \"yesterday\"", 0) == 0);
}

TEST_CASE("a field of the wrong type is rejected at its line") {
  const std::string text =
      replaced(kFixtureProfile, "\"hbm_bytes\": 1000", "\"hbm_bytes\": \"80GB\"");
  const BadProfile bad = load_bad("wrong_type", text, 14);
  CHECK(line_containing(text, "\"hbm_bytes\"") == 14);
  CHECK(bad.message == bad.expected_prefix + "memory.hbm_bytes is \"80GB\"; must be a number");

  const std::string flag =
      replaced(kFixtureProfile, "\"kv_read_per_pass\": true", "\"kv_read_per_pass\": 1");
  const BadProfile bad_flag =
      load_bad("wrong_bool", flag, line_containing(flag, "\"kv_read_per_pass\": 1"));
  CHECK(bad_flag.message ==
        bad_flag.expected_prefix + "draft.eagle3.kv_read_per_pass is 1; must be true or false");
}

TEST_CASE("a missing field is reported at the object that lacks it") {
  const std::string text = replaced(kFixtureProfile, "\"per_pass_us\": 300, ", "");
  const BadProfile bad = load_bad("missing", text, line_containing(text, "\"dflash\""));
  CHECK(bad.message == bad.expected_prefix + "draft.dflash.per_pass_us is missing");
}

TEST_CASE(
    "a drafter left out of draft has no cost: it stays out and is refused at the draft line") {
  // The fixture without its dflash entry (three lines), as a measured sweep that never reached it.
  std::string text = kFixtureProfile;
  const std::size_t from = text.find("    \"dflash\"");
  const std::size_t to = text.find("    \"dspark\"");
  REQUIRE((from != std::string::npos && to != std::string::npos));
  text.erase(from, to - from);
  const auto dir = testing::fresh_dir("no_dflash");
  const std::string path = testing::write_text(dir / "no_dflash.json", text);
  const Profile p = load_profile(path);
  CHECK_FALSE(p.draft[static_cast<int>(DrafterFamily::kDflash)].has_value());
  CHECK(p.draft[static_cast<int>(DrafterFamily::kDspark)].has_value());
  CHECK(p.draft_line == line_containing(text, "\"draft\""));

  const std::string message = error_of([&] { require_draft_cost(p, parse_drafter("dflash-4")); });
  const std::string at = path + ":" + std::to_string(line_containing(text, "\"draft\"")) + ": ";
  CHECK(message.rfind(at + "the profile has no draft cost for dflash (drafter dflash-4)", 0) == 0);
  CHECK_THAT(message, Catch::Contains("provenance.notes"));  // the fixture says "measured"
  CHECK_NOTHROW(require_draft_cost(p, parse_drafter("dspark-4")));
  CHECK_NOTHROW(require_draft_cost(p, parse_drafter("none")));  // drafts nothing, costs nothing

  // Written back, it still has no dflash key (never a zero entry), and reloads the same.
  write_profile(p, (dir / "out.json").string());
  const nlohmann::json written = nlohmann::json::parse(read_text((dir / "out.json").string()));
  CHECK_FALSE(written.at("draft").contains("dflash"));
  CHECK(written.at("draft").size() == 3);
}

TEST_CASE("non-monotone tables are rejected at the first element out of order") {
  const std::string dense =
      replaced(kFixtureProfile, "[100, 130, 170, 250]", "[100, 130, 120, 250]");
  BadProfile bad = load_bad("dense_us", dense, 24);
  CHECK(bad.message == bad.expected_prefix +
                           "verify.dense_us[2] is 120 after 130; must be non-decreasing (more "
                           "tokens never cost less)");

  const std::string tokens = replaced(kFixtureProfile, "[1, 4, 8, 16]", "[1, 8, 8, 16]");
  bad = load_bad("dense_tokens", tokens, 23);
  CHECK(bad.message ==
        bad.expected_prefix + "verify.dense_tokens[2] is 8 after 8; must be strictly ascending");

  const std::string sps =
      replaced(kFixtureProfile, "\"tokens\": [1, 3, 5]", "\"tokens\": [2, 3, 5]");
  bad = load_bad("sps_start", sps, line_containing(sps, "\"tokens\": [2"));
  CHECK(bad.message.rfind(bad.expected_prefix + "sps.tokens[0] is 2; must be 1", 0) == 0);

  const std::string lengths = replaced(kFixtureProfile, "[100, 80, 50]", "[100, 80]");
  bad = load_bad("sps_lengths", lengths, line_containing(lengths, "\"steps_per_s\""));
  CHECK(bad.message == bad.expected_prefix +
                           "sps.steps_per_s has 2 entries; sps.tokens has 3; they must have the "
                           "same length");

  const std::string zero = replaced(kFixtureProfile, "[100, 80, 50]", "[100, 0, 50]");
  bad = load_bad("sps_zero", zero, line_containing(zero, "\"steps_per_s\""));
  CHECK(bad.message == bad.expected_prefix + "sps.steps_per_s[1] is 0; must be > 0");
}

TEST_CASE("weights that leave no room for a KV cache are rejected") {
  // 1000 bytes * 0.9 = 900 usable: weights of 900 leave nothing, 895 less than one 7-byte token.
  for (const char* weights : {"950", "900", "895"}) {
    const std::string text = replaced(kFixtureProfile, "\"weights_bytes\": 400",
                                      std::string("\"weights_bytes\": ") + weights);
    const BadProfile bad = load_bad(std::string("weights_") + weights, text, 15);
    CHECK(bad.message.rfind(bad.expected_prefix + "memory.weights_bytes is " + weights +
                                "; leaves no room for a KV cache",
                            0) == 0);
  }
  const std::string ok =
      replaced(kFixtureProfile, "\"weights_bytes\": 400", "\"weights_bytes\": 893");
  const auto dir = testing::fresh_dir("weights_ok");
  CHECK(load_profile(testing::write_text(dir / "p.json", ok)).kv_capacity_tokens() == 1);
}

TEST_CASE("unknown keys are rejected, at the top level and inside objects") {
  const std::string top =
      replaced(kFixtureProfile, "  \"gpus\": 1,\n", "  \"gpus\": 1,\n  \"host_overhead_ms\": 1,\n");
  BadProfile bad = load_bad("unknown_top", top, 13);
  CHECK(bad.message.rfind(
            bad.expected_prefix + "unknown key 'host_overhead_ms'; valid keys: schema, ", 0) == 0);

  const std::string inner = replaced(kFixtureProfile, "\"fixed_us\": 10,\n", "\"fixd_us\": 10,\n");
  bad = load_bad("unknown_inner", inner, 21);
  CHECK(bad.message.rfind(bad.expected_prefix + "unknown key 'fixd_us' in verify; valid keys: ",
                          0) == 0);
}

TEST_CASE("malformed JSON is reported at the line where parsing failed") {
  // Dropping the comma after "target" is noticed at the next key, on line 12.
  const std::string text =
      replaced(kFixtureProfile, "\"target\": \"tiny\",", "\"target\": \"tiny\"");
  const BadProfile bad = load_bad("malformed", text, 12);
  CHECK(bad.message.rfind(bad.expected_prefix + "invalid JSON (column ", 0) == 0);
}

TEST_CASE("a file that is not a profile says so first") {
  const std::string text = replaced(kFixtureProfile, "sparksim.profile/1", "sparksim.config/1");
  const BadProfile bad = load_bad("schema", text, 2);
  CHECK(bad.message ==
        bad.expected_prefix + "schema is \"sparksim.config/1\"; must be \"sparksim.profile/1\"");
  CHECK(error_of([] {
          load_profile("/nonexistent/profile.json");
        }).rfind("/nonexistent/profile.json: cannot open", 0) == 0);
}

}  // namespace
}  // namespace sparksim
