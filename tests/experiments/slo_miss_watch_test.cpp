// SloMissWatch: a miss it calls certain is a miss whatever the remaining requests do (oracle: the
// statistic of the completed sample, computed by sample_percentile / sample_mean, for the rest set
// to the values most favourable to the SLO), and it is never late (one request earlier, those
// favourable values still meet the term). Small cases are worked by hand.
#include "experiments/plan/slo_miss_watch.hpp"

#include <cmath>
#include <random>
#include <utility>

#include <catch2/catch.hpp>

using namespace sparksim;

namespace {

RequestSample ttft(double ms) {
  RequestSample s;
  s.ttft_ms = ms;
  return s;
}

RequestSample speed(double tok_s) {
  RequestSample s;
  s.has_tpot = true;
  s.tok_s_per_user = tok_s;
  s.tpot_ms = 1000.0 / tok_s;
  return s;
}

}  // namespace

TEST_CASE("a p99 bound is lost once the values at ranks lo and hi both exceed it (by hand)") {
  // M = 101: rank 0.99 × 100 = 99, so p99 = the 100th smallest value; two values over 2000 put
  // it over, one does not (the other 100 could all be 0).
  const std::vector<SloTerm> terms = parse_slo_spec("ttft_p99_ms<=2000");
  SloMissWatch watch(terms, 101, 101);
  CHECK_FALSE(watch.add(ttft(1999)));
  CHECK_FALSE(watch.add(ttft(2000)));  // at the bound still meets
  CHECK_FALSE(watch.add(ttft(2500)));
  CHECK(watch.reason().empty());
  CHECK(watch.add(ttft(9000)));
  CHECK(watch.reason() == "ttft_p99_ms > 2000 certain: 2 of 101 over 2000 (at most 1 may be)");
  CHECK(watch.add(ttft(1)));  // certain ever after
}

TEST_CASE(
    "a p50 floor is lost once hi + 1 values are under it and one-token requests do not count") {
  // Four multi-token requests: rank 0.5 × 3 = 1.5, lo 1, hi 2, so the p50 interpolates between
  // the 2nd and 3rd smallest: three values under 80 fix both below it.
  const std::vector<SloTerm> terms = parse_slo_spec("tok_s_per_user_p50>=80");
  SloMissWatch watch(terms, 6, 4);
  CHECK_FALSE(watch.add(speed(10)));
  CHECK_FALSE(watch.add(ttft(5)));  // one output token: no tok/s sample
  CHECK_FALSE(watch.add(speed(80)));
  CHECK_FALSE(watch.add(speed(79)));
  CHECK(watch.add(speed(20)));
  CHECK(watch.reason() == "tok_s_per_user_p50 < 80 certain: 3 of 4 under 80 (at most 2 may be)");
}

TEST_CASE(
    "a mean ceiling is lost once the values seen sum past M times it but a mean floor never is") {
  const std::vector<SloTerm> terms = parse_slo_spec("ttft_mean_ms<=10,tok_s_per_user_mean>=80");
  SloMissWatch watch(terms, 4, 4);
  RequestSample s = speed(1);  // far below the floor, which later requests could still lift
  s.ttft_ms = 15;
  CHECK_FALSE(watch.add(s));
  CHECK_FALSE(watch.add(s));  // 30 <= 40
  s.ttft_ms = 10;
  CHECK_FALSE(watch.add(s));  // 40 <= 40: the fourth could be 0
  s.ttft_ms = 0.5;
  CHECK(watch.add(s));  // 40.5 > 40
  CHECK(watch.reason() ==
        "ttft_mean_ms > 10 certain: the requests done alone give a mean of 10.125");
}

TEST_CASE("certain misses are misses and come no later than they must (random samples)") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  // Each percentile with sample sizes M - 1 a multiple of `whole`, so that its rank is whole.
  const std::pair<const char*, int> specs[] = {
      {"ttft_p99_ms<=50", 100},       {"ttft_p90_ms<=50", 10}, {"tok_s_per_user_p50>=50", 2},
      {"tok_s_per_user_p10>=50", 10}, {"ttft_mean_ms<=50", 1}, {"tok_s_per_user_p90>=50", 10}};
  int certain_runs = 0, tight_checks = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const auto& [spec, whole] = specs[trial % 6];
    const std::vector<SloTerm> terms = parse_slo_spec(spec);
    const SloTerm& t = terms.front();
    // Odd trials: a whole rank, where the watch is exact; even ones: any size.
    std::int64_t m = 1 + static_cast<std::int64_t>(unit(rng) * 300);
    const bool whole_rank = trial % 2 == 1 && !t.mean;
    if (whole_rank) m = 1 + whole * (1 + static_cast<std::int64_t>(unit(rng) * 300 / whole));
    const double skew = unit(rng);  // how often a value is on the bad side
    std::vector<double> values(static_cast<std::size_t>(m));
    for (double& v : values) v = unit(rng) < skew ? 50 + 50 * unit(rng) : 50 * unit(rng);
    if (trial % 5 == 0) {
      for (double& v : values) v = std::round(v / 25) * 25;  // ties and values on the bound
    }
    // The term's statistic when the requests not yet done take the values most favourable to it.
    const double favourable = t.at_most ? 0.0 : 1e9;
    const auto stat_with_rest = [&](std::size_t seen) {
      std::vector<double> all(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(seen));
      all.resize(values.size(), favourable);
      return t.mean ? sample_mean(all) : sample_percentile(all, t.percentile);
    };
    SloMissWatch watch(terms, m, m);
    std::size_t seen = 0;
    bool certain = false;
    while (seen < values.size() && !certain) {
      RequestSample s = ttft(values[seen]);
      s.has_tpot = true;
      s.tok_s_per_user = values[seen++];
      certain = watch.add(s);
    }
    INFO("trial " << trial << " " << t.text() << " M=" << m << " seen " << seen);
    if (certain) {
      ++certain_runs;
      CHECK_FALSE(t.holds(stat_with_rest(seen)));
    }
    if (whole_rank) {  // not late: before it was certain, a favourable finish still met the term
      ++tight_checks;
      CHECK(t.holds(stat_with_rest(certain ? seen - 1 : seen)));
    }
  }
  CHECK(certain_runs > 200);  // the trials reach certainty often enough to test it
  CHECK(tight_checks > 200);
}
