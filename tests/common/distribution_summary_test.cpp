// Percentiles (numpy's linear interpolation) and the log histogram's stated error bound.
#include "common/distribution_summary.hpp"

#include <cmath>
#include <random>

#include <catch2/catch.hpp>

using namespace sparksim;

TEST_CASE("exact percentiles interpolate linearly between closest ranks (numpy default)") {
  // numpy.percentile([1, 2, 3, 4, 10], [10, 50, 90, 99]) = [1.4, 3.0, 7.6, 9.76]
  const auto s = summarize_exact({10, 2, 4, 1, 3});
  CHECK(s.count == 5);
  CHECK(s.mean == Approx(4.0));
  CHECK(s.p10 == Approx(1.4));
  CHECK(s.p50 == Approx(3.0));
  CHECK(s.p90 == Approx(7.6));
  CHECK(s.p99 == Approx(9.76));
  CHECK(summarize_exact({}).count == 0);
  CHECK(summarize_exact({7}).p99 == 7);
}

TEST_CASE("log histogram percentiles stay within the stated relative error") {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(std::log(20.0), 1.2);
  std::vector<double> values(200'000);
  LogHistogram h;
  for (auto& v : values) {
    v = dist(rng);
    h.add(v);
  }
  std::sort(values.begin(), values.end());
  const auto s = h.summarize();
  // Nearest-rank exact percentile vs the histogram's bucket midpoint: |rel| <= 2^-8.
  for (auto [q, got] : {std::pair{10.0, s.p10}, {50.0, s.p50}, {90.0, s.p90}, {99.0, s.p99}}) {
    const auto rank = static_cast<std::size_t>(std::ceil(q / 100.0 * values.size())) - 1;
    INFO("q=" << q);
    CHECK(std::abs(got / values[rank] - 1.0) <= h.relative_error() * (1 + 1e-9));
  }
  double sum = 0;
  for (double v : values) sum += v;
  CHECK(s.mean == Approx(sum / values.size()).epsilon(1e-12));
}

TEST_CASE("log histogram weights count each sample that many times, zeros are kept") {
  LogHistogram h;
  h.add(0.0, 3);
  h.add(100.0, 1);
  const auto s = h.summarize();
  CHECK(s.count == 4);
  CHECK(s.p50 == 0.0);
  CHECK(s.p99 == Approx(100.0).epsilon(LogHistogram::kRelativeError));
  CHECK(s.mean == Approx(25.0));
}
