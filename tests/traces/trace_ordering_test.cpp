// The shared last loader step: sort, count, rebase, bound the span; exact seconds formatting.
#include "traces/trace_ordering.hpp"

#include <limits>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"

namespace sparksim {
namespace {

TEST_CASE("format_seconds prints the exact stored value", "[traces][ordering]") {
  CHECK(format_seconds(0) == "0.000000000 s");
  CHECK(format_seconds(12'000'000'500) == "12.000000500 s");
  CHECK(format_seconds(-500'000'000) == "-0.500000000 s");
  CHECK(format_seconds(std::numeric_limits<SimTime>::min()) == "-9223372036.854775808 s");
}

TEST_CASE("finalize_loaded_trace bounds the span and refuses empty traces", "[traces][ordering]") {
  Trace t;
  t.report.source = "t.csv";
  CHECK_THROWS_WITH(finalize_loaded_trace(t), "t.csv: no requests after the header");
  t.requests = {{-kMaxSimTime, 1, 1, Domain::kChat}, {kMaxSimTime, 1, 1, Domain::kChat}};
  CHECK_THROWS_WITH(finalize_loaded_trace(t),
                    "t.csv: arrivals span 2000000000.000000000 s; at most 1000000000.000000000 s "
                    "is supported");
  t.requests = {{-kMaxSimTime, 1, 1, Domain::kChat}, {0, 2, 1, Domain::kChat}};
  finalize_loaded_trace(t);
  CHECK(t.requests[1].arrival == kMaxSimTime);
  CHECK(t.report.rows_sorted == 0);
  CHECK(t.report.rows_kept == 2);
  CHECK(count_out_of_order({{3, 1, 1, Domain::kChat},
                            {1, 1, 1, Domain::kChat},
                            {2, 1, 1, Domain::kChat},
                            {0, 1, 1, Domain::kChat}}) == 2);
}

TEST_CASE("finalize_loaded_trace sorts stably on many ties", "[traces][ordering]") {
  // 300 rows over 5 arrival values in a scrambled order: enough for std::sort's introsort (which
  // is stable only on the tiny inputs its insertion sort handles) to reorder ties.
  Trace t;
  t.report.source = "t";
  for (int i = 0; i < 300; ++i) {
    t.requests.push_back({SimTime{(i * 7) % 5} + 10, i + 1, 1, Domain::kChat});
  }
  const std::int64_t expected_out_of_order = count_out_of_order(t.requests);
  finalize_loaded_trace(t);
  CHECK(t.report.rows_sorted == expected_out_of_order);
  // (i*7)%5 cycles 0,2,4,1,3: a drop inside each of the 60 cycles (4->1) and between cycles (3->0).
  CHECK(t.report.rows_sorted == 60 + 59);
  CHECK(t.requests.front().arrival == 0);
  for (std::size_t i = 1; i < t.requests.size(); ++i) {
    const RequestSpec& a = t.requests[i - 1];
    const RequestSpec& b = t.requests[i];
    REQUIRE(a.arrival <= b.arrival);
    if (a.arrival == b.arrival) REQUIRE(a.prompt_tokens < b.prompt_tokens);  // file order
  }
}

}  // namespace
}  // namespace sparksim
