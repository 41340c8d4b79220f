// SPS beliefs: each belief's table worked by hand from the fixture profile's small time model
// (profile_fixture.hpp: fixed 10 us, CUDA-graph buckets 1, 2, 4, 8, dense cost through (1, 100),
// (4, 130), (8, 170), (16, 250) us, 2 ns per cached context token read, 0.5 ns per attention
// pair), belief names, and how old and new profile files carry the capture table.
#include "profiles/sps_belief.hpp"

#include <catch2/catch.hpp>

#include "profile_fixture.hpp"
#include "profiles/live_sps.hpp"
#include "profiles/profile_io.hpp"

using namespace sparksim;

namespace {

using testing::fixture_profile;

// SPS of a step of `ns` nanoseconds, as the tables store it (to six decimals).
Approx sps_of(double ns) {
  return Approx(1e9 / ns).epsilon(0).margin(5.000001e-7);
}

double at(const SpsPoints& points, std::int64_t b) {
  for (std::size_t i = 0; i < points.tokens.size(); ++i) {
    if (points.tokens[i] == b) return points.steps_per_s[i];
  }
  FAIL("no point at B = " << b);
  return 0;
}

SpsTableShapes small_shapes() {
  SpsTableShapes s;
  s.capture = {4, 2, 4};       // γ + 1 = 4 tokens per request, 2 cached tokens, up to 4 requests
  s.reference = {2, 100, 16};  // 2 tokens per request, 100 cached tokens, up to B = 16
  return s;
}

}  // namespace

TEST_CASE("belief names parse back and unknown names are refused") {
  for (const SpsBelief b : {SpsBelief::kCapture, SpsBelief::kLive, SpsBelief::kReference}) {
    CHECK(parse_sps_belief(sps_belief_name(b)) == b);
  }
  CHECK_FALSE(parse_sps_belief("Capture").has_value());
  CHECK_FALSE(parse_sps_belief("").has_value());
  CHECK(std::string(sps_belief_name(kDefaultSpsBelief)) == "capture");
}

TEST_CASE("capture table by hand: ceil(B/4) requests over a 2-token cache") {
  const SpsTables t = build_sps_tables(fixture_profile(), small_shapes());
  // Every bucket and the token after it, then the capture limit 4 x 4 = 16.
  CHECK(t.capture.tokens == std::vector<std::int64_t>{1, 2, 3, 4, 5, 8, 9, 16});
  // B = 3: padded to 4 (130 us) + 10 us fixed; 1 request reads 2 tokens (4 ns); 3 x 2 pairs
  // (3 ns).
  CHECK(at(t.capture, 3) == sps_of(140'000 + 4 + 3));
  // B = 5: padded to 8 (170 us); 2 requests read 4 tokens (8 ns); 10 pairs (5 ns).
  CHECK(at(t.capture, 5) == sps_of(180'000 + 8 + 5));
  // B = 9: past the largest bucket, eager: 170 + (250 - 170) / 8 = 180 us; 3 requests (12 ns),
  // 18 pairs (9 ns).
  CHECK(at(t.capture, 9) == sps_of(190'000 + 12 + 9));
  // B = 16: 250 us; 4 requests (16 ns); 32 pairs (16 ns).
  CHECK(at(t.capture, 16) == sps_of(260'000 + 16 + 16));
  // The staircase: B = 5..8 cost the same padded forward, so the table is flat there but for
  // the context terms, and drops at 9 (the next bucket does not exist: eager).
  CHECK(at(t.capture, 8) == sps_of(180'000 + 8 + 8));
}

TEST_CASE("reference table by hand: ceil(B/2) requests with 100 cached tokens each") {
  const SpsTables t = build_sps_tables(fixture_profile(), small_shapes());
  CHECK(t.reference.tokens == std::vector<std::int64_t>{1, 2, 3, 4, 5, 8, 9, 16});
  // B = 5: 3 requests read 300 tokens (600 ns); 500 pairs (250 ns); padded to 8.
  CHECK(at(t.reference, 5) == sps_of(180'000 + 600 + 250));
  // B = 9: 5 requests read 500 tokens (1000 ns); 900 pairs (450 ns); eager 180 us.
  CHECK(at(t.reference, 9) == sps_of(190'000 + 1000 + 450));
  // The reference charges a whole request's KV read every 2 tokens; capture (2-token caches)
  // almost nothing: at B = 16 the reference is slower by 8 x 100 x 2 ns + 1600 x 0.5 ns.
  CHECK(at(t.reference, 16) == sps_of(260'000 + 1600 + 800));
  CHECK(at(t.reference, 16) < at(t.capture, 16));
}

TEST_CASE("live table by hand: the step's requests, contexts and draft time") {
  const Profile p = fixture_profile();
  const TimeModel model(p);
  LiveSps live(model);
  // 2 requests with 150 cached tokens each (300 in all), 5 us of draft and host time per step.
  const SpsTable& t = live.at(2, 300, 16, 5'000);
  CHECK(t.max_tokens() == 16);
  // B = 2: 110 us dense + 10 fixed; 600 ns KV; 2 x 150 pairs (150 ns); + 5000 ns.
  CHECK(t.steps_per_s(2) == Approx(1e9 / (120'000 + 600 + 150 + 5'000)).epsilon(1e-15));
  // B = 5: padded to 8; 750 pairs (375 ns).
  CHECK(t.steps_per_s(5) == Approx(1e9 / (180'000 + 600 + 375 + 5'000)).epsilon(1e-15));
  // B = 9: eager 180 us; 1350 pairs (675 ns).
  CHECK(t.steps_per_s(9) == Approx(1e9 / (190'000 + 600 + 675 + 5'000)).epsilon(1e-15));
  // Refilled for another step: one request with 1000 cached tokens, no other cost. The ratio
  // bounds follow the new values (B = 8 -> 9 leaves the last bucket).
  const SpsTable& u = live.at(1, 1000, 9, 0);
  CHECK(u.max_tokens() == 9);
  const double s8 = 1e9 / (180'000 + 2'000 + 4'000);
  const double s9 = 1e9 / (190'000 + 2'000 + 4'500);
  CHECK(u.steps_per_s(8) == Approx(s8).epsilon(1e-15));
  CHECK(u.steps_per_s(9) == Approx(s9).epsilon(1e-15));
  CHECK(u.max_step_ratio(8, 8) == Approx(s8 / s9).epsilon(1e-12));
  CHECK(live.refills() == 2);
}

TEST_CASE("make_sps_table reads the belief's table") {
  Profile p = fixture_profile();
  // The fixture's own (hand-written) sps table is the reference belief, interpolated.
  const SpsTable ref = make_sps_table(p, SpsBelief::kReference, 5);
  CHECK(ref.steps_per_s(1) == 100);
  CHECK(ref.steps_per_s(2) == 90);
  const SpsTable cap = make_sps_table(p, SpsBelief::kCapture, 16);
  const SpsTables derived = build_sps_tables(p);
  CHECK(cap.steps_per_s(9) == at(derived.capture, 9));
}

TEST_CASE("an old profile without sps_capture gets it derived, a stored one is kept") {
  const Profile old = fixture_profile();
  REQUIRE_FALSE(old.sps_capture.tokens.empty());
  const SpsTables derived = build_sps_tables(old);
  CHECK(old.sps_capture.tokens == derived.capture.tokens);
  CHECK(old.sps_capture.steps_per_s == derived.capture.steps_per_s);
  // Default capture shape: dspark-7 (8 tokens per request) up to 256 requests, 1-token caches.
  CHECK(old.sps_capture.tokens.back() == 256 * 8);

  // A profile that stores its own capture table (e.g. measured at capture) keeps it as written.
  std::string text = testing::kFixtureProfile;
  const std::string tail = "\n  }\n}\n";
  REQUIRE(text.size() > tail.size());
  text.replace(text.rfind(tail), tail.size(),
               "\n  },\n  \"sps_capture\": {\"reference\": \"measured at capture\", "
               "\"tokens\": [1, 4], \"steps_per_s\": [1000, 900]}\n}\n");
  const Profile stored = profile_from_json(JsonFile::parse(text, "stored.json"));
  CHECK(stored.sps_capture.reference == "measured at capture");
  CHECK(stored.sps_capture.steps_per_s == std::vector<double>{1000, 900});
  CHECK(make_sps_table(stored, SpsBelief::kCapture, 4).steps_per_s(4) == 900);
  // It survives a write and a reload.
  const Profile again = profile_from_json(JsonFile::parse(format_profile(stored), "again.json"));
  CHECK(again.sps_capture.steps_per_s == stored.sps_capture.steps_per_s);
}

TEST_CASE("a malformed sps_capture is rejected at its line") {
  std::string text = testing::kFixtureProfile;
  const std::string tail = "\n  }\n}\n";
  text.replace(text.rfind(tail), tail.size(),
               "\n  },\n  \"sps_capture\": {\"reference\": \"x\", \"tokens\": [2, 4],\n"
               "    \"steps_per_s\": [1000, 900]}\n}\n");
  try {
    profile_from_json(JsonFile::parse(text, "bad.json"));
    FAIL("accepted a capture table that does not start at B = 1");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("sps_capture.tokens[0] is 2; must be 1") != std::string::npos);
  }
}

TEST_CASE("an old profile whose derived capture table overflows a step is refused at verify") {
  // A last dense segment of 1e9 us per token: at the capture limit (2048 tokens) a step would
  // last about 2e9 s, past the simulator's per-step limit.
  std::string text = testing::kFixtureProfile;
  const std::string from =
      "\"dense_tokens\": [1, 4, 8, 16],\n    \"dense_us\": [100, 130, 170, 250]";
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(),
               "\"dense_tokens\": [1, 4, 8, 9],\n    \"dense_us\": [100, 130, 170, 1e9]");
  try {
    profile_from_json(JsonFile::parse(text, "steep.json"));
    FAIL("accepted a profile whose capture table cannot be derived");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("steep.json:") &&
                             Catch::Contains("the capture SPS table derived from it"));
  }
}
