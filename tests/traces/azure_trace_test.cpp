// Azure trace loader: the bundled 2023 files (exact counts, spans and token totals worked out from
// the files themselves) and hand-written files for line ends, day boundaries and bad rows.
#include "traces/azure_trace.hpp"

#include <numeric>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "temp_dir.hpp"
#include "traces/trace_loader.hpp"

namespace sparksim {
namespace {

const std::string kTraceDir = std::string(SPARKSIM_SOURCE_DIR) + "/traces/";

std::int64_t total_prompt(const Trace& t) {
  return std::accumulate(t.requests.begin(), t.requests.end(), std::int64_t{0},
                         [](std::int64_t s, const RequestSpec& r) { return s + r.prompt_tokens; });
}
std::int64_t total_output(const Trace& t) {
  return std::accumulate(t.requests.begin(), t.requests.end(), std::int64_t{0},
                         [](std::int64_t s, const RequestSpec& r) { return s + r.output_tokens; });
}

TEST_CASE("bundled Azure code trace loads exactly", "[traces][azure]") {
  const Trace t = load_trace(kTraceDir + "azure_code_2023.csv", {});
  CHECK(t.report.format == "azure");
  CHECK(t.report.rows_read == 8819);
  CHECK(t.report.rows_kept == 8819);
  REQUIRE(t.requests.size() == 8819);
  CHECK(t.report.rows_sorted == 0);
  CHECK(t.report.rows_clipped == 0);
  CHECK(t.requests.front().arrival == 0);
  // First row 2023-11-16 18:17:03.9799600, last row 2023-11-16 19:14:19.9280160:
  // 57 min 16 s - 0.0519440 s = 3435.9480560 s.
  CHECK(t.requests.back().arrival == 3'435'948'056'000);
  // Second row 18:17:04.0319600 is 0.0520000 s after the first.
  CHECK(t.requests[1].arrival == 52'000'000);
  CHECK(t.requests.front().prompt_tokens == 4808);
  CHECK(t.requests.front().output_tokens == 10);
  CHECK(t.requests.back().prompt_tokens == 549);
  CHECK(t.requests.back().output_tokens == 173);
  // Totals from `awk -F, 'NR>1{p+=$2;o+=$3}'` over the file.
  CHECK(total_prompt(t) == 18'059'974);
  CHECK(total_output(t) == 245'896);
  // Means as published in traces/README.md (2,047.8 and 27.9).
  CHECK(static_cast<double>(total_prompt(t)) / 8819 == Approx(2047.8).margin(0.05));
  CHECK(static_cast<double>(total_output(t)) / 8819 == Approx(27.9).margin(0.05));
  for (const RequestSpec& r : t.requests) REQUIRE(r.domain == Domain::kCode);
}

TEST_CASE("bundled Azure conversation trace loads exactly", "[traces][azure]") {
  const Trace t = load_trace(kTraceDir + "azure_conv_2023.csv", {});
  CHECK(t.report.rows_read == 19366);
  REQUIRE(t.requests.size() == 19366);
  CHECK(t.report.rows_sorted == 0);
  CHECK(t.requests.front().arrival == 0);
  // 18:15:46.6805900 -> 19:14:08.4025270: 58 min 22 s - 0.2780630 s = 3501.7219370 s.
  CHECK(t.requests.back().arrival == 3'501'721'937'000);
  CHECK(total_prompt(t) == 22'361'870);
  CHECK(total_output(t) == 4'088'665);
  CHECK(static_cast<double>(total_prompt(t)) / 19366 == Approx(1154.7).margin(0.05));
  CHECK(static_cast<double>(total_output(t)) / 19366 == Approx(211.1).margin(0.05));
  for (const RequestSpec& r : t.requests) REQUIRE(r.domain == Domain::kChat);
  // The file is sorted with no repeated timestamps: arrivals strictly increase.
  for (std::size_t i = 1; i < t.requests.size(); ++i) {
    REQUIRE(t.requests[i].arrival > t.requests[i - 1].arrival);
  }
}

TEST_CASE("Azure domain option overrides the file-name default", "[traces][azure]") {
  TraceOptions options;
  options.domain = Domain::kMath;
  const Trace t = load_trace(kTraceDir + "azure_code_2023.csv", options);
  for (const RequestSpec& r : t.requests) REQUIRE(r.domain == Domain::kMath);
}

TEST_CASE("Azure CRLF file without a final newline", "[traces][azure]") {
  testing::TempDir dir;
  const std::string path = dir.write("small.csv",
                                     "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
                                     "2023-11-16 18:17:03.9799600,4808,10\r\n"
                                     "2023-11-16 18:17:04.0000000,100,5\r\n"
                                     "2023-11-16 18:17:05.9799601,7,3");
  const Trace t = load_trace(path, {});
  REQUIRE(t.requests.size() == 3);
  CHECK(t.requests[0] == RequestSpec{0, 4808, 10, Domain::kChat});
  CHECK(t.requests[1] == RequestSpec{20'040'000, 100, 5, Domain::kChat});
  // The last, unterminated line is a full row (its 7th fraction digit is 100 ns).
  CHECK(t.requests[2] == RequestSpec{2'000'000'100, 7, 3, Domain::kChat});
}

TEST_CASE("Azure timestamps across midnight, month and leap day", "[traces][azure]") {
  testing::TempDir dir;
  const std::string path = dir.write("days.csv",
                                     "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                     "2023-12-31 23:59:59.9999999,1,1\n"
                                     "2024-01-01 00:00:00.0000001,1,1\n"
                                     "2024-02-28 23:00:00.0000000,1,1\n"
                                     "2024-03-01 00:00:00.0000000,1,1\n");
  const Trace t = load_trace(path, {});
  REQUIRE(t.requests.size() == 4);
  CHECK(t.requests[1].arrival == 200);  // two 100 ns ticks across the year boundary
  // 2024-01-01 -> 2024-02-28 23:00 is 58 days 23 h; 2024 is a leap year, so 2024-03-01 00:00 is
  // a further 25 h (Feb 29 exists).
  const SimTime to_feb28 = (58 * 86400LL + 23 * 3600LL) * kNanosPerSecond + 100;
  CHECK(t.requests[2].arrival == to_feb28);
  CHECK(t.requests[3].arrival == to_feb28 + 25 * 3600LL * kNanosPerSecond);
}

TEST_CASE("Azure bad rows name their line", "[traces][azure]") {
  testing::TempDir dir;
  const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n";
  const std::string good = "2023-11-16 18:17:03.9799600,4808,10\r\n";
  auto load = [&](const std::string& bad_line) {
    const std::string path = dir.write("bad.csv", header + good + bad_line);
    return load_trace(path, {});
  };
  const std::string p = (dir.path() / "bad.csv").string();
  CHECK_THROWS_WITH(load("2023-11-16 18:17:04,1,1,1\r\n"),
                    p + ":3: expected 3 fields (TIMESTAMP,ContextTokens,GeneratedTokens), found 4");
  CHECK_THROWS_WITH(load("2023-11-16T18:17:04.0,1,1\r\n"),
                    p + ":3: TIMESTAMP is '2023-11-16T18:17:04.0'; expected "
                        "YYYY-MM-DD HH:MM:SS[.fffffff]");
  CHECK_THROWS_WITH(load("2023-02-29 00:00:00.0,1,1\r\n"),
                    p + ":3: TIMESTAMP is '2023-02-29 00:00:00.0'; day 29 does not exist in "
                        "2023-02");
  CHECK_THROWS_WITH(load("2023-11-16 24:00:00.0,1,1\r\n"),
                    p + ":3: TIMESTAMP is '2023-11-16 24:00:00.0'; hour 24 is not 0-23");
  CHECK_THROWS_WITH(load("2023-11-16 18:17:04.0,0,1\r\n"),
                    p + ":3: ContextTokens is 0; must be >= 1");
  CHECK_THROWS_WITH(load("2023-11-16 18:17:04.0,5,-2\r\n"),
                    p + ":3: GeneratedTokens is -2; must be >= 0");
  CHECK_THROWS_WITH(load("2023-11-16 18:17:04.0,5,x\r\n"),
                    p + ":3: GeneratedTokens is 'x'; must be an integer");
  CHECK_THROWS_WITH(load("2023-11-16 18:17:04.0,100000001,1\r\n"),
                    p + ":3: ContextTokens is 100000001; must be <= 100000000");
  CHECK_THROWS_WITH(load("2099-11-16 18:17:04.0,1,1\r\n"),
                    Catch::Matchers::StartsWith(p + ":3: TIMESTAMP 2099-11-16 18:17:04.0 is more "
                                                    "than 1000000000 s from the first row's"));
}

TEST_CASE("Azure zero output tokens are clipped to 1 and counted", "[traces][azure]") {
  testing::TempDir dir;
  const std::string path = dir.write("zero.csv",
                                     "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                     "2023-11-16 18:17:03.0,10,0\n"
                                     "2023-11-16 18:17:04.0,10,4\n");
  const Trace t = load_trace(path, {});
  CHECK(t.report.rows_clipped == 1);
  CHECK(t.requests[0].output_tokens == 1);
  CHECK(t.requests[1].output_tokens == 4);
  CHECK_THAT(t.report.notes.front(), Catch::Matchers::StartsWith("1 rows had GeneratedTokens 0"));
}

}  // namespace
}  // namespace sparksim
