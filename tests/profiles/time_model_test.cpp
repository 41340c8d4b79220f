// TimeModel and SpsTable on the hand-written fixture profile: every expected value below is
// worked out by hand from the fixture's round numbers (see the comment on each check).
#include "profiles/time_model.hpp"

#include <catch2/catch.hpp>

#include "profiles/profile_io.hpp"
#include "tests/profiles/profile_fixture.hpp"

namespace sparksim {
namespace {

using testing::fixture_profile;
using testing::tokens_only;

// Fixture verify model: fixed 10 us; buckets 1, 2, 4, 8; dense (1, 100) (4, 130) (8, 170)
// (16, 250) us; 2 ns per context token; 0.5 ns per attention pair.
TEST_CASE("verify_time pads to CUDA-graph buckets and interpolates the dense table") {
  const TimeModel m(fixture_profile());
  CHECK(m.verify_time(tokens_only(0)) == 0);
  CHECK(m.verify_time(tokens_only(1)) == 110'000);  // 10 + 100 us
  CHECK(m.verify_time(tokens_only(2)) == 120'000);  // bucket 2: 100 + 30 * (2-1)/(4-1) = 110
  CHECK(m.verify_time(tokens_only(3)) == 140'000);  // pads to 4: 10 + 130
  CHECK(m.verify_time(tokens_only(4)) == 140'000);
  CHECK(m.verify_time(tokens_only(5)) == 180'000);  // pads to 8: 10 + 170
  CHECK(m.verify_time(tokens_only(8)) == 180'000);
  // Above the largest bucket: eager, no padding; 170 + 4 * 10 us per token.
  CHECK(m.verify_time(tokens_only(9)) == 190'000);
  CHECK(m.verify_time(tokens_only(12)) == 220'000);
  CHECK(m.verify_time(tokens_only(16)) == 260'000);
  // Past the last point the last segment's slope (10 us/token) continues.
  CHECK(m.verify_time(tokens_only(20)) == 300'000);
  CHECK(m.verify_time(tokens_only(1016)) == 10'260'000);  // 10 + 250 + 1000 * 10 us
}

TEST_CASE("verify_time adds KV reads and attention pairs, and counts prefill tokens") {
  const TimeModel m(fixture_profile());
  BatchShape s = tokens_only(1);
  s.decode_context_tokens = 1000;   // 2 us
  s.verify_attention_pairs = 1000;  // 0.5 us
  CHECK(m.verify_time(s) == 112'500);
  s.prefill_tokens = 2;              // 3 tokens in all: pads to 4 -> 130 us dense
  s.prefill_attention_pairs = 3000;  // 1.5 us more
  CHECK(m.verify_time(s) == 10'000 + 130'000 + 2'000 + 500 + 1'500);
  // Prefill alone runs the forward too.
  BatchShape prefill_only;
  prefill_only.prefill_tokens = 16;
  CHECK(m.verify_time(prefill_only) == 260'000);
  // Rounding to integer ns happens once, at the end: 1.5 ns rounds half away from zero.
  BatchShape odd = tokens_only(1);
  odd.verify_attention_pairs = 3;  // 1.5 ns
  CHECK(m.verify_time(odd) == 110'002);
}

TEST_CASE("a dense table starting above one token holds its first value below it") {
  Profile p = fixture_profile();
  p.verify.graph_buckets.clear();
  p.verify.dense_tokens = {4, 8};
  p.verify.dense_us = {130, 170};
  const TimeModel m(p);
  CHECK(m.verify_time(tokens_only(1)) == 140'000);
  CHECK(m.verify_time(tokens_only(6)) == 160'000);  // no buckets: 130 + 2 * 10
}

// Fixture draft models (fixed us, per pass us, per token ns, sequential, scale, kv ns, per pass):
//   mtp1 (0, 100, 1000, no, no, 0.5, no)   eagle3 (10, 50, 200, yes, yes, 0.25, yes)
//   dflash (20, 300, 100, no, yes, 1, no)  dspark (320, 40, 150, yes, yes, 1, no)
TEST_CASE("draft_time follows each family's cost formula") {
  const TimeModel m(fixture_profile());
  const DrafterSpec mtp1 = parse_drafter("mtp1");
  const DrafterSpec eagle3 = parse_drafter("eagle3-3");
  const DrafterSpec dflash = parse_drafter("dflash-7");
  const DrafterSpec dspark = parse_drafter("dspark-7");
  CHECK(m.draft_time(mtp1, 0) == 0);
  CHECK(m.draft_time(dspark, 0, 1000) == 0);
  // mtp1: 100 us + 1000 ns * R; context read once.
  CHECK(m.draft_time(mtp1, 4) == 104'000);
  CHECK(m.draft_time(mtp1, 4, 1000) == 104'500);
  // eagle3-3: 10 + 3 * 50 us + 200 ns * 4 * 3 tokens; every pass re-reads the context.
  CHECK(m.draft_time(eagle3, 4) == 162'400);
  CHECK(m.draft_time(eagle3, 4, 1000) == 162'400 + 750);
  // dflash-7: 20 + 300 us (one pass) + 100 ns * 2 * 7.
  CHECK(m.draft_time(dflash, 2) == 321'400);
  CHECK(m.draft_time(dflash, 2, 100) == 321'500);
  // dspark-7: 320 + 7 * 40 us (Markov loop) + 150 ns * 2 * 7; context read once.
  CHECK(m.draft_time(dspark, 2) == 602'100);
  CHECK(m.draft_time(dspark, 2, 100) == 602'200);
  // Rounding: 0.5 ns * 3 = 1.5 ns of context -> 2 ns.
  CHECK(m.draft_time(mtp1, 1, 3) == 101'000 + 2);
  CHECK(m.host_overhead() == 150'000);
}

TEST_CASE("SpsTable interpolates between points and keeps tokens/s constant past the last") {
  const SpsTable t(fixture_profile().sps, 8);  // (1, 100) (3, 80) (5, 50)
  CHECK(t.max_tokens() == 8);
  CHECK(t.steps_per_s(1) == 100);
  CHECK(t.steps_per_s(2) == Approx(90));
  CHECK(t.steps_per_s(3) == Approx(80));
  CHECK(t.steps_per_s(4) == Approx(65));
  CHECK(t.steps_per_s(5) == Approx(50));
  CHECK(t.steps_per_s(6) == Approx(250.0 / 6));  // 5 * 50 = 250 tokens/s
  CHECK(t.steps_per_s(8) == Approx(250.0 / 8));
  CHECK(t.steps_per_s(9) == Approx(250.0 / 9));  // beyond the materialised range
  CHECK(t.steps_per_s(1000) == Approx(0.25));

  // A table cut before the last point continues from its own last value.
  const SpsTable short_table(fixture_profile().sps, 2);
  CHECK(short_table.steps_per_s(4) == Approx(90.0 * 2 / 4));
}

TEST_CASE("SpsTable from explicit values and bad inputs") {
  const SpsTable t(std::vector<double>{10, 8, 6});
  CHECK(t.max_tokens() == 3);
  CHECK(t.steps_per_s(2) == 8);
  CHECK(t.steps_per_s(6) == Approx(3.0));  // 3 * 6 = 18 tokens/s
  CHECK_THROWS_AS(SpsTable(std::vector<double>{}), std::invalid_argument);
  SpsPoints bad;
  bad.tokens = {2, 4};
  bad.steps_per_s = {1, 1};
  CHECK_THROWS_AS(SpsTable(bad, 8), std::invalid_argument);
}

}  // namespace
}  // namespace sparksim

namespace sparksim {
namespace {

double brute_max_step_ratio(const SpsTable& sps, std::int64_t lo, std::int64_t hi) {
  double best = 0;
  for (std::int64_t b = lo; b <= hi; ++b) {
    best = std::max(best, sps.steps_per_s(b) / sps.steps_per_s(b + 1));
  }
  return best;
}

TEST_CASE(
    "SpsTable::max_step_ratio is the largest SPS(B)/SPS(B+1) over the range, past the table too") {
  // Hand-checked: SPS = 10, 8, 8, 5 (B = 1..4), then 20 / B past the table.
  const SpsTable sps(std::vector<double>{10.0, 8.0, 8.0, 5.0});
  CHECK(sps.max_step_ratio(1, 1) == 10.0 / 8.0);
  CHECK(sps.max_step_ratio(2, 2) == 1.0);
  CHECK(sps.max_step_ratio(2, 3) == 8.0 / 5.0);
  CHECK(sps.max_step_ratio(1, 3) == 8.0 / 5.0);
  // B = 4: SPS(5) = 20 / 5 = 4, ratio 5 / 4; B = 7: (7 + 1) / 7.
  CHECK(sps.max_step_ratio(4, 4) == Approx(5.0 / 4.0).epsilon(1e-15));
  CHECK(sps.max_step_ratio(7, 9) == Approx(8.0 / 7.0).epsilon(1e-15));
  // Against brute force on an interpolated profile table.
  const SpsTable curve(SpsPoints{{1, 8, 9, 64}, {150.0, 149.0, 140.0, 100.0}, "test table"}, 80);
  for (std::int64_t lo = 1; lo <= 90; lo += 7) {
    for (std::int64_t hi = lo; hi <= 95; hi += 5) {
      INFO("lo " << lo << " hi " << hi);
      CHECK(curve.max_step_ratio(lo, hi) ==
            Approx(brute_max_step_ratio(curve, lo, hi)).epsilon(1e-14));
    }
  }
  // Ranges wider than the sparse table's widest window (256), on a random staircase.
  std::vector<double> values(1000);
  double level = 500;
  for (std::size_t i = 0; i < values.size(); ++i) {
    level *= (i * 7919) % 13 == 0 ? 0.9 : 0.999;
    values[i] = level;
  }
  const SpsTable wide(values);
  for (std::int64_t lo = 1; lo <= 1000; lo += 97) {
    for (std::int64_t hi = lo; hi <= 1010; hi += 89) {
      INFO("lo " << lo << " hi " << hi);
      CHECK(wide.max_step_ratio(lo, hi) == brute_max_step_ratio(wide, lo, hi));
    }
  }
}

}  // namespace
}  // namespace sparksim
