// The profiler's stopping rule: it stops as soon as the noise is under the threshold (not before
// min_samples), keeps sampling while noisy, and reports the cap honestly.
#include "kernels/timing/stable_sampling.hpp"

#include <catch2/catch.hpp>

namespace sparksim::kernels {
namespace {

TEST_CASE("steady timings stop at min_samples after the warm-up", "[kernels][timing]") {
  int calls = 0;
  const TimingStats s = sample_until_stable(
      [&] {
        ++calls;
        return calls <= 3 ? 1000.0 : 50.0;  // slow warm-up samples are discarded
      },
      {3, 5, 100, 0.02});
  CHECK(calls == 8);
  CHECK(s.samples == 5);
  CHECK(s.mean_us == 50.0);
  CHECK(s.noise == 0.0);
  CHECK(s.converged);
}

TEST_CASE("noisy timings sample until the standard error is small", "[kernels][timing]") {
  // Alternating 90 / 110: stddev ~10, so stderr / mean < 2% needs n > (10 / 100 / 0.02)^2 = 25.
  int calls = 0;
  const TimingStats s =
      sample_until_stable([&] { return (calls++ % 2 == 0) ? 90.0 : 110.0; }, {0, 5, 1000, 0.02});
  CHECK(s.converged);
  CHECK(s.samples >= 25);
  CHECK(s.samples <= 28);
  CHECK(s.noise < 0.02);
  CHECK(s.mean_us == Approx(100.0).margin(1.0));
}

TEST_CASE("the cap is reported as not converged", "[kernels][timing]") {
  int calls = 0;
  const TimingStats s =
      sample_until_stable([&] { return (calls++ % 2 == 0) ? 10.0 : 190.0; }, {0, 5, 12, 0.02});
  CHECK(s.samples == 12);
  CHECK_FALSE(s.converged);
  CHECK(s.noise > 0.02);
  CHECK_THROWS_AS(sample_until_stable([] { return 1.0; }, {0, 1, 12, 0.02}), std::invalid_argument);
}

}  // namespace
}  // namespace sparksim::kernels
