// The cluster's ITL percentiles come from merging its replicas' log histograms
// (LogHistogram::merge): merged, they must equal one histogram fed every sample.
#include <random>

#include <catch2/catch.hpp>

#include "common/distribution_summary.hpp"

using namespace sparksim;

TEST_CASE("merging replicas' ITL histograms equals one histogram of every sample") {
  std::mt19937_64 rng(77);
  std::lognormal_distribution<double> gap_ms(2.0, 1.5);
  LogHistogram all;
  LogHistogram parts[3];
  for (int i = 0; i < 20000; ++i) {
    // Disjoint ranges per part too, so a merge must grow the bucket range on both sides.
    const int part = static_cast<int>(rng() % 3);
    const double value = i % 1000 == 0 ? 0.0 : gap_ms(rng) * (part == 2 ? 1000.0 : 1.0);
    const auto weight = static_cast<std::int64_t>(1 + rng() % 4);
    all.add(value, weight);
    parts[part].add(value, weight);
  }
  LogHistogram merged;
  merged.merge(LogHistogram{});  // merging an empty one changes nothing
  for (int p : {2, 0, 1}) merged.merge(parts[p]);
  const DistributionSummary a = all.summarize();
  const DistributionSummary b = merged.summarize();
  CHECK(b.count == a.count);
  CHECK(b.mean == Approx(a.mean).epsilon(1e-12));  // only the summation order differs
  CHECK(b.p10 == a.p10);
  CHECK(b.p50 == a.p50);
  CHECK(b.p90 == a.p90);
  CHECK(b.p99 == a.p99);
  LogHistogram into_empty;
  into_empty.merge(all);
  const DistributionSummary c = into_empty.summarize();
  CHECK(c.mean == a.mean);  // one part: bit for bit, as a one-replica cluster needs
  CHECK(c.p99 == a.p99);
}
