// The stopping rule of stable_sampling.hpp (Welford's running mean and variance).
#include "kernels/timing/stable_sampling.hpp"

#include <cmath>
#include <stdexcept>

namespace sparksim::kernels {

TimingStats sample_until_stable(const std::function<double()>& sample_us,
                                const SamplingOptions& o) {
  if (o.warmup < 0 || o.min_samples < 2 || o.max_samples < o.min_samples || !(o.target_noise > 0)) {
    throw std::invalid_argument(
        "sampling: need warmup >= 0, 2 <= min_samples <= max_samples, target_noise > 0");
  }
  for (int i = 0; i < o.warmup; ++i) sample_us();
  TimingStats s;
  double mean = 0.0;
  double m2 = 0.0;
  for (int n = 1; n <= o.max_samples; ++n) {
    const double x = sample_us();
    const double delta = x - mean;
    mean += delta / n;
    m2 += delta * (x - mean);
    s.samples = n;
    s.mean_us = mean;
    if (n < 2) continue;
    const double stderr_mean = std::sqrt(m2 / (n - 1) / n);
    s.noise = mean > 0 ? stderr_mean / mean : INFINITY;
    if (n >= o.min_samples && s.noise < o.target_noise) {
      s.converged = true;
      break;
    }
  }
  return s;
}

}  // namespace sparksim::kernels
