// Trace loading front door: the format registry (conformance over every row), detection, file
// errors, out-of-order rows, and arrival-rate scaling.
#include "traces/trace_loader.hpp"

#include <algorithm>
#include <limits>
#include <set>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "temp_dir.hpp"

namespace sparksim {
namespace {

TEST_CASE("every registered trace format loads its example, detected and forced",
          "[traces][registry]") {
  testing::TempDir dir;
  std::set<std::string_view> names;
  std::set<TraceFormat> formats;
  for (const TraceFormatInfo& info : trace_formats()) {
    INFO("format " << info.name);
    CHECK(names.insert(info.name).second);  // a duplicate name would make one row unreachable
    CHECK(formats.insert(info.format).second);
    CHECK(parse_trace_format(std::string(info.name)) == info.format);
    CHECK(&trace_format_info(info.format) == &info);
    CHECK_FALSE(info.description.empty());
    CHECK((info.matches_header != nullptr || !info.extension.empty()));

    const std::string file =
        "example" + (info.extension.empty() ? std::string(".txt") : std::string(info.extension));
    const std::string path = dir.write(file, std::string(info.example));
    const Trace detected = load_trace(path, {});
    CHECK(detected.report.format == info.name);
    CHECK(detected.report.source == path);
    CHECK(detected.report.rows_kept >= 2);
    CHECK(detected.report.rows_kept == static_cast<std::int64_t>(detected.requests.size()));
    CHECK(detected.requests.front().arrival == 0);
    TraceOptions forced;
    forced.format = info.format;
    const Trace forced_trace = load_trace(path, forced);
    CHECK(forced_trace.requests == detected.requests);
  }
}

TEST_CASE("parse_trace_format rejects unknown names, listing the valid ones", "[traces]") {
  CHECK(parse_trace_format("azure") == TraceFormat::kAzure);
  CHECK(parse_trace_format("mooncake") == TraceFormat::kMooncake);
  CHECK(parse_trace_format("csv") == TraceFormat::kNativeCsv);
  CHECK_THROWS_WITH(parse_trace_format("Azure"),
                    "--trace-format: unknown format 'Azure'; valid: azure, mooncake, csv");
}

TEST_CASE("file-level errors", "[traces]") {
  testing::TempDir dir;
  const std::string missing = (dir.path() / "nope.csv").string();
  CHECK_THROWS_WITH(load_trace(missing, {}), missing + ": cannot open");
  CHECK_THROWS_WITH(load_trace(dir.path().string(), {}),
                    dir.path().string() + ": cannot open: is a directory");
  const std::string empty = dir.write("empty.csv", "");
  CHECK_THROWS_WITH(load_trace(empty, {}), empty + ": file is empty");
  const std::string header_only =
      dir.write("header.csv", "TIMESTAMP,ContextTokens,GeneratedTokens");
  CHECK_THROWS_WITH(load_trace(header_only, {}), header_only + ": no requests after the header");
}

TEST_CASE("unrecognised header lists the accepted formats", "[traces]") {
  testing::TempDir dir;
  const std::string path = dir.write("x.csv", "time,in,out\r\n1,2,3\r\n");
  CHECK_THROWS_WITH(load_trace(path, {}),
                    path +
                        ":1: unrecognised header 'time,in,out'; expected one of header "
                        "'TIMESTAMP,ContextTokens,GeneratedTokens' (azure); a file name ending "
                        "in .jsonl (mooncake); or header "
                        "'arrival_s,prompt_tokens,output_tokens,domain' (domain column "
                        "optional) (csv)");
}

TEST_CASE("a forced format still checks the header", "[traces]") {
  testing::TempDir dir;
  const std::string path = dir.write("n.csv", "arrival_s,prompt_tokens,output_tokens\n0,1,1\n");
  TraceOptions options;
  options.format = TraceFormat::kAzure;
  CHECK_THROWS_WITH(load_trace(path, options),
                    path +
                        ":1: header 'arrival_s,prompt_tokens,output_tokens' is not an Azure "
                        "trace header; expected 'TIMESTAMP,ContextTokens,GeneratedTokens'");
  options.format = TraceFormat::kMooncake;
  CHECK_THROWS_WITH(load_trace(path, options),
                    Catch::Matchers::StartsWith(path + ":1: not valid JSON"));
}

TEST_CASE("out-of-order rows are stable-sorted and counted", "[traces]") {
  testing::TempDir dir;
  // Rows 3 and 5 arrive earlier than the row before them; rows 2 and 6 tie at 1.0 s.
  const std::string path = dir.write("o.csv",
                                     "arrival_s,prompt_tokens,output_tokens\n"
                                     "1.0,1,1\n"
                                     "2.0,2,1\n"
                                     "0.5,3,1\n"
                                     "3.0,4,1\n"
                                     "1.0,5,1\n");
  const Trace t = load_trace(path, {});
  CHECK(t.report.rows_sorted == 2);
  CHECK(t.report.rows_kept == 5);
  std::vector<std::int64_t> order;
  for (const RequestSpec& r : t.requests) order.push_back(r.prompt_tokens);
  CHECK(order == std::vector<std::int64_t>{3, 1, 5, 2, 4});  // 1 before 5: file order on the tie
  CHECK(t.requests[0].arrival == 0);
  CHECK(t.requests[1].arrival == 500'000'000);
  CHECK(t.requests[2].arrival == 500'000'000);
  CHECK(t.requests[4].arrival == 2'500'000'000);
  const std::string note =
      "2 rows arrived earlier than the row before them; stable-sorted by arrival (equal arrivals "
      "keep file order)";
  CHECK(std::find(t.report.notes.begin(), t.report.notes.end(), note) != t.report.notes.end());
}

TEST_CASE("scale_arrivals divides arrivals and notes it", "[traces][scale]") {
  const std::string path = std::string(SPARKSIM_SOURCE_DIR) + "/traces/azure_code_2023.csv";
  const Trace original = load_trace(path, {});
  Trace t = original;
  scale_arrivals(t, 2.0);
  REQUIRE(t.requests.size() == original.requests.size());
  CHECK(t.requests.back().arrival == 3'435'948'056'000 / 2);
  for (std::size_t i = 0; i < t.requests.size(); ++i) {
    // Every Azure arrival is a multiple of 100 ns, so halving is exact.
    REQUIRE(t.requests[i].arrival * 2 == original.requests[i].arrival);
  }
  CHECK(t.report.notes.back() ==
        "arrivals divided by 2 (rate scale): the mean request rate is 2x the source's");

  Trace odd;
  odd.requests = {{0, 1, 1, Domain::kChat}, {10, 1, 1, Domain::kChat}, {11, 1, 1, Domain::kChat}};
  scale_arrivals(odd, 3.0);  // 10/3 = 3.33 -> 3, 11/3 = 3.67 -> 4: nearest ns
  CHECK(odd.requests[1].arrival == 3);
  CHECK(odd.requests[2].arrival == 4);

  Trace same = original;
  scale_arrivals(same, 1.0);
  CHECK(same.requests == original.requests);
  CHECK(same.report.notes == original.report.notes);  // nothing changed, nothing noted
}

TEST_CASE("scale_arrivals rejects bad scales and overflow", "[traces][scale]") {
  Trace t;
  t.requests = {{0, 1, 1, Domain::kChat}, {kMaxSimTime / 2, 1, 1, Domain::kChat}};
  CHECK_THROWS_WITH(scale_arrivals(t, 0.0),
                    "--rate-scale: scale is 0; must be a finite number > 0");
  CHECK_THROWS_WITH(scale_arrivals(t, -1.0),
                    "--rate-scale: scale is -1; must be a finite number > 0");
  CHECK_THROWS_WITH(scale_arrivals(t, std::numeric_limits<double>::quiet_NaN()),
                    "--rate-scale: scale is nan; must be a finite number > 0");
  CHECK_THROWS_WITH(scale_arrivals(t, std::numeric_limits<double>::infinity()),
                    "--rate-scale: scale is inf; must be a finite number > 0");
  CHECK_THROWS_AS(scale_arrivals(t, 0.25), InputError);
  CHECK(t.requests[1].arrival == kMaxSimTime / 2);  // unchanged after the failure
}

TEST_CASE("scale_lengths multiplies prompt and output tokens, rounds, keeps 1, notes it",
          "[traces][scale]") {
  Trace t;
  // Hand-worked: 10 x 1.25 = 12.5 -> 13 (nearest, halves away from zero), 3 x 1.25 = 3.75 -> 4;
  // outputs 7 x 0.3 = 2.1 -> 2, 1 x 0.3 = 0.3 -> 1 (at least one token).
  t.requests = {{0, 10, 7, Domain::kChat}, {5, 3, 1, Domain::kCode}};
  scale_lengths(t, 1.25, 0.3);
  CHECK(t.requests[0] == RequestSpec{0, 13, 2, Domain::kChat});
  CHECK(t.requests[1] == RequestSpec{5, 4, 1, Domain::kCode});
  REQUIRE(t.report.notes.size() == 2);
  CHECK(t.report.notes[0] ==
        "every request's prompt tokens x 1.25 (length scale), rounded, at "
        "least 1");
  CHECK(t.report.notes[1] ==
        "every request's output tokens x 0.3 (length scale), rounded, at "
        "least 1");

  Trace same;
  same.requests = {{0, 10, 7, Domain::kChat}};
  scale_lengths(same, 1.0, 1.0);
  CHECK(same.requests[0] == RequestSpec{0, 10, 7, Domain::kChat});
  CHECK(same.report.notes.empty());  // nothing changed, nothing noted
}

TEST_CASE("scale_lengths rejects bad scales and lengths past the limit, changing nothing",
          "[traces][scale]") {
  Trace t;
  t.requests = {{0, kMaxTokensPerRequest / 2 + 1, 5, Domain::kChat}};
  CHECK_THROWS_WITH(scale_lengths(t, 0.0, 1.0),
                    "--prompt-length-scale: scale is 0; must be a finite number > 0");
  CHECK_THROWS_WITH(scale_lengths(t, 1.0, -2.0),
                    "--output-length-scale: scale is -2; must be a finite number > 0");
  CHECK_THROWS_WITH(scale_lengths(t, 2.0, 3.0),
                    "--prompt-length-scale: scale 2 would take a request of 50000001 tokens past "
                    "100000000 tokens");
  CHECK(t.requests[0] == RequestSpec{0, kMaxTokensPerRequest / 2 + 1, 5, Domain::kChat});
  CHECK(t.report.notes.empty());
}

}  // namespace
}  // namespace sparksim
