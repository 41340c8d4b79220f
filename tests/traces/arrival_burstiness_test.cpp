// Re-drawn inter-arrival gaps (--arrival-cv). Oracles are closed forms, not the code's own
// numbers: a renewal process's gaps have the asked mean and cv, so over n gaps the sample mean is
// within its standard error cv * m / sqrt(n) of the source's mean gap m, and the sample cv within
// its delta-method standard error sqrt(cv^2 (1 + cv^2) / (2 n)) (gamma gaps: shape k = 1/cv^2,
// Var(cv_hat) = (1/(2k) + 1/(2k^2)) / n) of the asked cv; at cv 1 the gaps are exponential, so
// the share of gaps longer than the mean is e^-1. Tolerances are 4 standard errors.
#include "traces/arrival_burstiness.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "common/sim_time.hpp"

namespace sparksim {
namespace {

constexpr std::size_t kRequests = 20001;  // 20,000 gaps
constexpr double kSourceGapS = 0.25;      // the source's mean gap (4 requests per second)

// Evenly spaced arrivals (the source's own cv is 0) starting at 3 s, lengths that name the row.
Trace even_trace() {
  Trace t;
  for (std::size_t i = 0; i < kRequests; ++i) {
    const auto n = static_cast<std::int64_t>(i);
    t.requests.push_back({seconds_to_sim_time(3.0 + kSourceGapS * static_cast<double>(i)), n + 1,
                          2 * n + 1, i % 2 == 0 ? Domain::kChat : Domain::kCode});
  }
  return t;
}

struct GapStatistics {
  double mean_s = 0, cv = 0, share_above_mean = 0;
};

GapStatistics gap_statistics(const Trace& t) {
  GapStatistics g;
  const double n = static_cast<double>(t.requests.size() - 1);
  for (std::size_t i = 1; i < t.requests.size(); ++i) {
    g.mean_s += sim_time_to_seconds(t.requests[i].arrival - t.requests[i - 1].arrival) / n;
  }
  double squares = 0;
  for (std::size_t i = 1; i < t.requests.size(); ++i) {
    const double gap = sim_time_to_seconds(t.requests[i].arrival - t.requests[i - 1].arrival);
    squares += (gap - g.mean_s) * (gap - g.mean_s);
    if (gap > g.mean_s) g.share_above_mean += 1 / n;
  }
  g.cv = std::sqrt(squares / (n - 1)) / g.mean_s;
  return g;
}

TEST_CASE("re-drawn gaps have the asked cv and the source's mean rate", "[traces][arrival_cv]") {
  const double n = kRequests - 1;
  for (const double cv : {0.5, 1.0, 2.0}) {
    INFO("cv " << cv);
    Trace t = even_trace();
    redraw_arrival_gaps(t, cv, 7);
    const GapStatistics g = gap_statistics(t);
    CHECK(std::abs(g.mean_s - kSourceGapS) < 4 * cv * kSourceGapS / std::sqrt(n));
    CHECK(std::abs(g.cv - cv) < 4 * std::sqrt(cv * cv * (1 + cv * cv) / (2 * n)));
    // The helper agrees with this test's own sample cv.
    CHECK(arrival_gap_cv(t) == Approx(g.cv).epsilon(1e-9));
    // Each request keeps its lengths, domain and place; the first arrival stays.
    CHECK(t.requests.front().arrival == seconds_to_sim_time(3.0));
    bool kept = true;
    for (std::size_t i = 0; i < t.requests.size(); ++i) {
      const auto k = static_cast<std::int64_t>(i);
      kept = kept && t.requests[i].prompt_tokens == k + 1 &&
             t.requests[i].output_tokens == 2 * k + 1 &&
             t.requests[i].domain == (i % 2 == 0 ? Domain::kChat : Domain::kCode) &&
             (i == 0 || t.requests[i].arrival >= t.requests[i - 1].arrival);
    }
    CHECK(kept);
    REQUIRE(t.report.notes.size() == 1);
    CHECK_THAT(t.report.notes[0], Catch::Contains("gamma renewal process, cv " +
                                                  std::string(cv == 0.5   ? "0.5"
                                                              : cv == 1.0 ? "1"
                                                                          : "2") +
                                                  " (the source's gaps: 0)"));
  }
}

TEST_CASE("cv 1 gives exponential gaps: e^-1 of them longer than the mean",
          "[traces][arrival_cv]") {
  Trace t = even_trace();
  redraw_arrival_gaps(t, 1.0, 11);
  const double n = kRequests - 1;
  const double p = std::exp(-1.0);
  CHECK(std::abs(gap_statistics(t).share_above_mean - p) < 4 * std::sqrt(p * (1 - p) / n));
}

TEST_CASE("re-drawn gaps are reproducible from the seed and differ between seeds",
          "[traces][arrival_cv]") {
  Trace a = even_trace(), b = even_trace(), c = even_trace();
  redraw_arrival_gaps(a, 1.5, 3);
  redraw_arrival_gaps(b, 1.5, 3);
  redraw_arrival_gaps(c, 1.5, 4);
  CHECK(a.requests == b.requests);
  CHECK_FALSE(a.requests == c.requests);
}

TEST_CASE("bad cv or a trace with no rate is refused before anything changes",
          "[traces][arrival_cv]") {
  Trace t = even_trace();
  const auto before = t.requests;
  CHECK_THROWS_WITH(redraw_arrival_gaps(t, 0.0, 1), "--arrival-cv: cv is 0; must be in (0, 10]");
  CHECK_THROWS_WITH(redraw_arrival_gaps(t, 10.5, 1),
                    "--arrival-cv: cv is 10.5; must be in (0, 10]");
  CHECK_THROWS_WITH(redraw_arrival_gaps(t, std::nan(""), 1), Catch::Contains("must be in (0, 10]"));
  CHECK(t.requests == before);
  CHECK(t.report.notes.empty());

  Trace one;
  one.requests = {{0, 10, 5, Domain::kChat}};
  CHECK_THROWS_WITH(redraw_arrival_gaps(one, 2.0, 1),
                    Catch::Contains("needs at least two requests arriving at different times"));
  Trace same_instant;
  same_instant.requests = {{5, 10, 5, Domain::kChat}, {5, 11, 6, Domain::kChat}};
  CHECK_THROWS_WITH(redraw_arrival_gaps(same_instant, 2.0, 1),
                    Catch::Contains("needs at least two requests arriving at different times"));
}

}  // namespace
}  // namespace sparksim
