// Repeat a timing until its relative noise is below a threshold (with a cap), as the profiler
// does for every measured row: noise is the standard error of the mean over the mean, and every
// row records how many samples it took and the noise it reached. Host-only, so its stopping rule
// is tested without a GPU; kernels/cuda supplies the samples (CUDA events, L2 flushed between).
#pragma once

#include <functional>

namespace sparksim::kernels {

struct SamplingOptions {
  int warmup = 3;              // samples run and discarded first
  int min_samples = 5;         // never stop before this many
  int max_samples = 200;       // the cap: stop here even if still noisy
  double target_noise = 0.02;  // stop once stderr / mean is below this
};

struct TimingStats {
  double mean_us = 0.0;
  double noise = 0.0;  // standard error of the mean / mean
  int samples = 0;
  bool converged = false;  // false: the cap was reached with noise >= target
};

// sample_us returns one measurement in microseconds (> 0). Throws std::invalid_argument for
// inconsistent options.
TimingStats sample_until_stable(const std::function<double()>& sample_us,
                                const SamplingOptions& options);

}  // namespace sparksim::kernels
