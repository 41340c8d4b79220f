// Mooncake JSONL loader: the bundled conversation trace (row count, clipping, bucket structure)
// with spreading on and off, and hand-written files for clipping and bad lines.
#include "traces/mooncake_trace.hpp"

#include <fstream>
#include <iterator>
#include <map>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "temp_dir.hpp"
#include "traces/trace_loader.hpp"

namespace sparksim {
namespace {

const std::string kMooncake =
    std::string(SPARKSIM_SOURCE_DIR) + "/traces/mooncake_conversation.jsonl";

bool has_note_starting(const LoadReport& report, const std::string& prefix) {
  for (const std::string& note : report.notes) {
    if (note.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

TEST_CASE("bundled Mooncake trace loads with buckets kept", "[traces][mooncake]") {
  const Trace t = load_trace(kMooncake, {});
  CHECK(t.report.format == "mooncake");
  CHECK(t.report.rows_read == 12031);
  REQUIRE(t.requests.size() == 12031);
  CHECK(t.report.rows_sorted == 0);
  // The file's minimum output_length is 1 (72 rows have 1, none 0: checked with a Python scan),
  // so nothing is clipped.
  CHECK(t.report.rows_clipped == 0);
  CHECK(t.requests.front() == RequestSpec{0, 6758, 500, Domain::kChat});
  CHECK(t.requests.back().arrival == SimTime{3'536'999} * 1'000'000);
  std::int64_t prompt = 0, output = 0;
  std::map<SimTime, int> buckets;
  for (const RequestSpec& r : t.requests) {
    prompt += r.prompt_tokens;
    output += r.output_tokens;
    ++buckets[r.arrival];
    REQUIRE(r.domain == Domain::kChat);
  }
  CHECK(prompt == 144'793'823);
  CHECK(output == 4'122'048);
  CHECK(buckets.size() == 1180);  // distinct timestamps, per traces/README.md
  CHECK(buckets.at(0) == 10);
  CHECK(has_note_starting(t.report, "bucket spreading off"));
}

TEST_CASE("Mooncake bucket spreading", "[traces][mooncake]") {
  const Trace kept = load_trace(kMooncake, {});
  TraceOptions options;
  options.spread_buckets = true;
  const Trace spread = load_trace(kMooncake, options);
  REQUIRE(spread.requests.size() == kept.requests.size());
  CHECK(spread.report.rows_sorted == 0);
  CHECK(has_note_starting(spread.report, "bucket spreading on"));
  // Every bucket has >= 2 requests, so all but the first of each moved: 12031 - 1180.
  CHECK_THAT(spread.report.notes.back(),
             Catch::Matchers::Contains("10851 requests moved, 1180 buckets"));

  // Same requests in the same order (the gaps between buckets, >= 2997 ms, exceed every spread
  // offset, so no re-sorting), each within its own bucket's 3 s, none sharing an arrival.
  for (std::size_t i = 0; i < kept.requests.size(); ++i) {
    const RequestSpec& a = kept.requests[i];
    const RequestSpec& b = spread.requests[i];
    REQUIRE(b.prompt_tokens == a.prompt_tokens);
    REQUIRE(b.output_tokens == a.output_tokens);
    REQUIRE(b.arrival >= a.arrival);
    REQUIRE(b.arrival < a.arrival + kMooncakeBucketWidth);
    if (i > 0) REQUIRE(b.arrival > spread.requests[i - 1].arrival);
  }
  // The first bucket (timestamp 0) has 10 requests: offsets are i * 300 ms exactly.
  for (int i = 0; i < 10; ++i) CHECK(spread.requests[i].arrival == i * SimTime{300'000'000});
  CHECK(spread.requests[10].arrival == kept.requests[10].arrival);  // next bucket's first
}

TEST_CASE("Mooncake spreading of an uneven bucket is exact integer ns", "[traces][mooncake]") {
  Trace t;
  t.report.source = "x";
  for (int i = 0; i < 3; ++i) t.requests.push_back({SimTime{5'000'000'000}, 1, 1, Domain::kChat});
  t.requests.push_back({SimTime{8'000'000'000}, 1, 1, Domain::kChat});
  spread_timestamp_buckets(t, kMooncakeBucketWidth);
  CHECK(t.requests[0].arrival == 5'000'000'000);
  CHECK(t.requests[1].arrival == 6'000'000'000);
  CHECK(t.requests[2].arrival == 7'000'000'000);
  CHECK(t.requests[3].arrival == 8'000'000'000);
}

TEST_CASE("Mooncake spreading re-sorts when a bucket overruns the next", "[traces][mooncake]") {
  Trace t;
  t.report.source = "x";
  t.requests.push_back({0, 1, 1, Domain::kChat});
  t.requests.push_back({0, 2, 1, Domain::kChat});              // moves to 1.5 s
  t.requests.push_back({1'000'000'000, 3, 1, Domain::kChat});  // a bucket only 1 s later
  spread_timestamp_buckets(t, kMooncakeBucketWidth);
  CHECK(t.requests[1].prompt_tokens == 3);
  CHECK(t.requests[2].prompt_tokens == 2);
  CHECK(t.requests[2].arrival == 1'500'000'000);
  CHECK(has_note_starting(t.report, "1 spread requests passed"));
}

TEST_CASE("Mooncake output_length 0 is clipped to 1 and counted", "[traces][mooncake]") {
  testing::TempDir dir;
  const std::string path =
      dir.write("z.jsonl",
                "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 0}\n"
                "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 1}\n"
                "{\"timestamp\": 9, \"input_length\": 10, \"output_length\": 0}");
  const Trace t = load_trace(path, {});
  CHECK(t.report.rows_clipped == 2);
  CHECK(t.requests[0].output_tokens == 1);
  CHECK(t.requests[2].output_tokens == 1);
  CHECK(t.requests[1].arrival == 5'000'000);
  CHECK(has_note_starting(t.report, "2 rows had output_length 0; clipped to 1"));
}

TEST_CASE("Mooncake bad lines name their line", "[traces][mooncake]") {
  testing::TempDir dir;
  const std::string good = "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 3}\n";
  const std::string p = (dir.path() / "bad.jsonl").string();
  auto load = [&](const std::string& bad) {
    return load_trace(dir.write("bad.jsonl", good + bad), {});
  };
  CHECK_THROWS_WITH(load("{\"timestamp\": 1, \"input_length\": 10\n"),
                    Catch::Matchers::StartsWith(p + ":2: not valid JSON (column "));
  CHECK_THROWS_WITH(load("[1, 2]\n"), p + ":2: expected a JSON object, found '[1,2]'");
  CHECK_THROWS_WITH(load("{\"timestamp\": 1, \"input_length\": 10}\n"),
                    p + ":2: missing field 'output_length'");
  CHECK_THROWS_WITH(load("{\"timestamp\": -1, \"input_length\": 10, \"output_length\": 3}\n"),
                    p + ":2: timestamp is -1; must be >= 0");
  CHECK_THROWS_WITH(load("{\"timestamp\": 1.5, \"input_length\": 10, \"output_length\": 3}\n"),
                    p + ":2: timestamp is '1.5'; must be an integer");
  CHECK_THROWS_WITH(load("{\"timestamp\": 1, \"input_length\": \"10\", \"output_length\": 3}\n"),
                    p + ":2: input_length is '\"10\"'; must be an integer");
  CHECK_THROWS_WITH(load("{\"timestamp\": 1, \"input_length\": 0, \"output_length\": 3}\n"),
                    p + ":2: input_length is 0; must be >= 1");
  CHECK_THROWS_WITH(load("{\"timestamp\": 1, \"input_length\": 10, \"output_length\": -4}\n"),
                    p + ":2: output_length is -4; must be >= 0");
  CHECK_THROWS_WITH(
      load("{\"timestamp\": 1, \"input_length\": 123456789012, \"output_length\": 3}\n"),
      p + ":2: input_length is 123456789012; must be <= 100000000");
  CHECK_THROWS_WITH(
      load("{\"timestamp\": 2000000000000, \"input_length\": 1, \"output_length\": 3}\n"),
      p + ":2: timestamp is 2000000000000; must be <= 1000000000000 ms");
}

TEST_CASE("a Mooncake number too large for a double is an input error at its line",
          "[traces][mooncake]") {
  // Regression (fuzz/regressions/mooncake_number_overflow.jsonl): "4E491" is valid JSON syntax,
  // nlohmann refused it with out_of_range, and the loader let that escape as a crash.
  const std::string text =
      "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5}\n"
      "{\"timestamp\": 1, \"input_length\": 4E491, \"output_length\": 5}\n";
  try {
    load_mooncake_trace("m.jsonl", text, {});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("m.jsonl:2: not valid JSON (number overflow"));
  }
  std::ifstream file(std::string(SPARKSIM_SOURCE_DIR) +
                     "/fuzz/regressions/mooncake_number_overflow.jsonl");
  const std::string found((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  REQUIRE_FALSE(found.empty());
  CHECK_THROWS_AS(load_mooncake_trace("found.jsonl", found, {}), InputError);
}

}  // namespace
}  // namespace sparksim
