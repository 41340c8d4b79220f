// The profile's optional step terms: old profiles load without them, the section round-trips, a
// bad source is refused at its line, and the time model adds them as the header's formulas say
// (checked by hand on the fixture profile's round numbers).
#include <catch2/catch.hpp>

#include "profile_fixture.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/time_model.hpp"

using namespace sparksim;
using testing::kFixtureProfile;

namespace {

const std::string kTerms = R"(,
  "step_terms": {
    "source": "calibrated",
    "measurements": "two hand-made cases",
    "tool": "unit test",
    "notes": "",
    "per_step_us": 40,
    "per_sequence_us": 3
  }
})";

std::string with_terms(const std::string& terms = kTerms) {
  std::string text = kFixtureProfile;
  const std::size_t end = text.rfind('}');
  return text.substr(0, text.rfind('}', end - 1) + 1) + terms + "\n";
}

Profile load_text(const std::string& name, const std::string& text) {
  const auto dir = testing::fresh_dir(name);
  return load_profile(testing::write_text(dir / "p.json", text));
}

}  // namespace

TEST_CASE("a profile without step terms loads with none, and its step times are unchanged") {
  const Profile p = load_text("no_terms", kFixtureProfile);
  CHECK_FALSE(p.step_terms.present);
  CHECK(p.label().find("step terms") == std::string::npos);
  BatchShape s;
  s.decode_requests = 2;
  s.verify_tokens = 2;
  // fixed 10 + dense(pad(2) = 2) = 10 + 110 (between 100 at 1 and 130 at 4) = 120 us.
  CHECK(TimeModel(p).verify_time(s) == 120'000);
}

TEST_CASE("step terms load, round-trip and are added as documented") {
  const Profile p = load_text("terms", with_terms());
  REQUIRE(p.step_terms.present);
  CHECK(p.step_terms.measurements == "two hand-made cases");
  CHECK(p.label().find("+ step terms calibrated on two hand-made cases") != std::string::npos);
  const Profile again = profile_from_json(JsonFile::parse(format_profile(p), "again.json"));
  CHECK(profile_to_json(again) == profile_to_json(p));

  const TimeModel m(p);
  BatchShape decode;
  decode.decode_requests = 2;
  decode.verify_tokens = 2;
  // 120 us as above + 40 per step + 3 x 2 requests.
  CHECK(m.verify_time(decode) == 166'000);
  BatchShape prefill;
  prefill.prefill_tokens = 16;
  // dense(16) = 250 + fixed 10 + 40 per step (no term scales a step: the large-chunk scale is
  // gone, issue 32).
  CHECK(m.verify_time(prefill) == 300'000);
}

TEST_CASE("step terms that are not calibrated are refused at their line") {
  std::string terms = kTerms;
  terms.replace(terms.find("\"calibrated\""), 12, "\"guessed\"");
  const std::string text = with_terms(terms);
  try {
    load_text("bad_terms", text);
    FAIL("loaded");
  } catch (const InputError& e) {
    const std::string expected =
        ":" + std::to_string(testing::line_containing(text, "\"guessed\"")) + ":";
    CHECK_THAT(e.what(), Catch::Contains(expected) && Catch::Contains("must be \"calibrated\""));
  }
}

TEST_CASE("a profile with front-end costs is refused at the key: they moved to the presets") {
  std::string terms = kTerms;
  terms.insert(terms.find("\"per_step_us\""), "\"frontend_request_ms\": 14,\n    ");
  const std::string text = with_terms(terms);
  try {
    load_text("front_end", text);
    FAIL("loaded");
  } catch (const InputError& e) {
    const std::string expected =
        ":" + std::to_string(testing::line_containing(text, "\"frontend_request_ms\"")) + ":";
    CHECK_THAT(e.what(), Catch::Contains(expected) &&
                             Catch::Contains("moved to the engine presets") &&
                             Catch::Contains("sim/engine_preset.cpp"));
  }
}

TEST_CASE("a profile that still carries the removed large-chunk scale is refused at load") {
  // Issue 32: no term scales a whole step; a file with the old keys would otherwise time its
  // large steps differently from what it says, so it stops with its path and the key.
  std::string terms = kTerms;
  terms.insert(terms.find("\"per_step_us\""), "\"large_chunk_scale\": 2.2,\n    ");
  try {
    load_text("old_scale", with_terms(terms));
    FAIL("loaded");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("p.json:") && Catch::Contains("large_chunk_scale"));
  }
}
