// MetricsCollector's inter-token-latency histograms: gaps batched per step (the same instant and
// previous delivery, counted per token count) must give exactly the counts and percentiles of
// adding every gap on its own, whatever the order of calls and whether a step closes the batch.
#include "sim/metrics.hpp"

#include <random>

#include <catch2/catch.hpp>

namespace sparksim {
namespace {

// Same counts and bucket percentiles; the mean to rounding (the sums are added in another order).
void check_same(const DistributionSummary& a, const DistributionSummary& b) {
  CHECK(a.count == b.count);
  CHECK(a.p10 == b.p10);
  CHECK(a.p50 == b.p50);
  CHECK(a.p90 == b.p90);
  CHECK(a.p99 == b.p99);
  CHECK(a.mean == Approx(b.mean).epsilon(1e-12));
}

TEST_CASE("batched inter-token gaps equal one histogram add per delivery") {
  std::mt19937_64 rng(5);
  MetricsCollector metrics(nullptr);
  LogHistogram step_gaps, token_gaps;
  SimTime now = 1'000'000;
  for (int step = 0; step < 2000; ++step) {
    const SimTime previous = now;
    now += 1 + static_cast<SimTime>(rng() % 40'000'000);
    const int deliveries = 1 + static_cast<int>(rng() % 12);
    for (int d = 0; d < deliveries; ++d) {
      // Mostly the common previous delivery; sometimes another (a request back from prefill);
      // token counts up to 80, so some pass the batched range (64).
      const SimTime from =
          rng() % 5 == 0 ? previous - static_cast<SimTime>(rng() % 1000) : previous;
      const std::int64_t tokens = rng() % 10 == 0 ? 1 + static_cast<std::int64_t>(rng() % 80)
                                                  : 1 + static_cast<std::int64_t>(rng() % 8);
      metrics.on_tokens(now, from, tokens);
      const double gap_ms = sim_time_to_ms(now - from);
      step_gaps.add(gap_ms);
      token_gaps.add(gap_ms / static_cast<double>(tokens), tokens);
    }
    metrics.on_tokens(now, -1, 3);  // a first delivery has no gap
    if (step % 3 == 0) {
      StepRecord record;
      record.start = previous;
      record.end = now;
      metrics.on_step(record);
    }
  }
  check_same(metrics.itl_step_ms(), step_gaps.summarize());
  check_same(metrics.itl_token_ms(), token_gaps.summarize());
}

}  // namespace
}  // namespace sparksim
