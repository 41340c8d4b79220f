// The decode-attention table and the per-prefill-token term of the verify time model (issue 17:
// the measured-db form), on the hand-written fixture profile plus a 2 x 3 table of round
// numbers: every expected value is worked out by hand in the comment beside it. Also the loader
// (round trip, a row of the wrong length) and the fitter recovering a known per-token term.
#include <catch2/catch.hpp>

#include "profiles/fit/least_squares_fit.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/time_model.hpp"
#include "tests/profiles/profile_fixture.hpp"

namespace sparksim {
namespace {

// Fixture verify model: fixed 10 us; buckets 1, 2, 4, 8; dense (1, 100) (4, 130) (8, 170)
// (16, 250) us; 2 ns per context token; 0.5 ns per attention pair. Here the KV and pair rates are
// zeroed so the table is the only context term, and a table is added:
//   requests 1, 4; context 100, 200, 400; us  [1 request]  20  30  50
//                                             [4 requests] 40  70 110
Profile with_table() {
  Profile p = profile_from_json(JsonFile::parse(testing::kFixtureProfile, "fixture.json"));
  p.verify.kv_read_ns_per_context_token = 0;
  p.verify.attention_ns_per_pair = 0;
  p.verify.decode_attention_requests = {1, 4};
  p.verify.decode_attention_context = {100, 200, 400};
  p.verify.decode_attention_us = {{20, 30, 50}, {40, 70, 110}};
  return p;
}

// R requests at `context` tokens each, one verify token each.
BatchShape decode(std::int64_t requests, std::int64_t context) {
  BatchShape s;
  s.decode_requests = requests;
  s.verify_tokens = requests;
  s.decode_context_tokens = requests * context;
  return s;
}

double table_us(const TimeModel& m, std::int64_t requests, std::int64_t context) {
  return m.verify_terms(decode(requests, context)).decode_attention_us;
}

TEST_CASE("decode attention table: grid points, bilinear inside, the stated extrapolations") {
  const TimeModel m(with_table());
  CHECK(table_us(m, 1, 100) == Approx(20));
  CHECK(table_us(m, 4, 400) == Approx(110));
  CHECK(table_us(m, 1, 150) == Approx(25));  // halfway along context: (20 + 30) / 2
  CHECK(table_us(m, 1, 300) == Approx(40));  // (30 + 50) / 2
  // R = 2 is a third of the way from 1 to 4: at context 200, 30 + (70 - 30) / 3 = 43.333.
  CHECK(table_us(m, 2, 200) == Approx(30 + 40.0 / 3));
  // R = 3, context 300: rows at 300 are 40 and 90; two thirds of the way: 40 + 50 * 2/3.
  CHECK(table_us(m, 3, 300) == Approx(40 + 50.0 * 2 / 3));
  // Mean context is Σ context / R: 2 requests holding 250 and 350 read like 2 x 300.
  BatchShape mixed = decode(2, 0);
  mixed.decode_context_tokens = 600;
  CHECK(m.verify_terms(mixed).decode_attention_us == Approx(table_us(m, 2, 300)));
  // Below the grid: the first column; past the last context the last slope (20 us / 200 tokens
  // at 1 request) continues: 50 + 20 * 200 / 200 = 70.
  CHECK(table_us(m, 1, 10) == Approx(20));
  CHECK(table_us(m, 1, 600) == Approx(70));
  // Past the largest batch, linear in batch from its row: 8 requests at 400 = 2 x 110.
  CHECK(table_us(m, 8, 400) == Approx(220));
  // No decode requests, no decode attention (a prefill-only step).
  BatchShape prefill;
  prefill.prefill_tokens = 4;
  CHECK(m.verify_terms(prefill).decode_attention_us == 0);
}

TEST_CASE("decode attention table and prefill tokens enter verify_time, which terms add up to") {
  Profile p = with_table();
  p.verify.prefill_token_ns = 250;  // 0.25 us per prefill token
  const TimeModel m(p);
  // 1 request at 200 context: 10 fixed + 100 dense + 30 table = 140 us.
  CHECK(m.verify_time(decode(1, 200)) == 140'000);
  // 3 requests at 300 context with a 4-token chunk: 7 tokens pad to 8 -> 170 dense; table
  // 40 + 50 * 2/3 = 73.333 us; 4 x 0.25 = 1 us of prefill tokens; 10 fixed.
  BatchShape s = decode(3, 300);
  s.prefill_tokens = 4;
  CHECK(m.verify_time(s) == std::llround((10 + 170 + 40 + 50.0 * 2 / 3 + 1) * 1e3));
  const VerifyTerms t = m.verify_terms(s);
  CHECK(t.prefill_token_us == Approx(1));
  CHECK(t.total_us() * 1e3 == Approx(static_cast<double>(m.verify_time(s))).margin(1.0));
  // A profile without the new keys is unchanged: the old fixture's 2 ns per context token.
  const TimeModel old(profile_from_json(JsonFile::parse(testing::kFixtureProfile, "f.json")));
  CHECK(old.verify_time(decode(1, 1000)) == 10'000 + 100'000 + 2'000);
}

TEST_CASE("decode attention table: written, loaded back, and a short row is refused") {
  const Profile p = with_table();
  const std::string text = format_profile(p);
  const Profile back = profile_from_json(JsonFile::parse(text, "back.json"));
  CHECK(back.verify.decode_attention_requests == p.verify.decode_attention_requests);
  CHECK(back.verify.decode_attention_context == p.verify.decode_attention_context);
  CHECK(back.verify.decode_attention_us == p.verify.decode_attention_us);
  std::string bad = text;
  const std::size_t at = bad.find("110");
  REQUIRE(at != std::string::npos);
  bad.replace(at - 2, 5, "");  // the last row loses its last value: [40, 70]
  const std::string e =
      testing::error_of([&] { profile_from_json(JsonFile::parse(bad, "b.json")); });
  CHECK(e.find("b.json:") == 0);
  CHECK(e.find("decode_attention_us") != std::string::npos);
  CHECK(e.find("same length") != std::string::npos);
}

// The measured-db verify fit's term set on synthetic steps with known coefficients and 0.5%
// multiplicative noise: the fitter recovers the per-prefill-token term (and the rest).
TEST_CASE("least squares recovers a known per-prefill-token coefficient beside the others") {
  DesignMatrix d({"fixed_us", "prefill_chunk_us", "prefill_us_per_pair", "prefill_us_per_token"});
  const double truth[] = {300, 450, 0.0009, 0.35};
  std::uint64_t state = 12345;
  const auto noise = [&] {  // deterministic, uniform in [-0.005, 0.005]
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5) * 0.01;
  };
  for (double n : {128, 256, 512, 1024, 2048, 4096, 8192}) {
    for (double cached : {0, 1024, 4096}) {
      for (double chunk : {0, 1}) {
        const double tokens = n * chunk;
        const double pairs = tokens * (cached + (tokens + 1) / 2);
        const std::vector<double> x{1, chunk, pairs, tokens};
        double y = 0;
        for (int j = 0; j < 4; ++j) y += truth[j] * x[j];
        d.add(x, y * (1 + noise()), "synthetic");
      }
    }
  }
  const LinearFit f = fit_least_squares(d);
  CHECK(f.coefficient("fixed_us") == Approx(300).epsilon(0.02));
  CHECK(f.coefficient("prefill_chunk_us") == Approx(450).epsilon(0.05));
  CHECK(f.coefficient("prefill_us_per_pair") == Approx(0.0009).epsilon(0.03));
  CHECK(f.coefficient("prefill_us_per_token") == Approx(0.35).epsilon(0.1));
}

}  // namespace
}  // namespace sparksim
