// What the comparisons of kernel_checks.cpp, model_checks.cpp and the autoregressive-drafter
// checks share: seeded random bf16-exact inputs, noisy caches, ragged batches, and the small
// bookkeeping of a result (a cache's values in one vector, a slot's prefix, a decision margin, a
// failure appended to a result's detail).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/checks/compare.hpp"
#include "kernels/ragged_batch.hpp"
#include "kernels/reference/rejection_ref.hpp"

namespace sparksim::kernels::checks {

class Inputs {
 public:
  explicit Inputs(std::uint64_t seed) : rng_(seed) {}
  // n values ~ center + scale * N(0, 1), rounded to bf16.
  std::vector<float> normal(std::size_t n, double scale = 1.0, double center = 0.0);
  int integer(int lo, int hi);
  double uniform();  // [0, 1)
  // A random distribution over vocab tokens: softmax of N(0, 2) logits (some tokens dominate).
  std::vector<float> distribution(int vocab);

 private:
  std::mt19937_64 rng_;
};

std::vector<double> widen(const std::vector<float>& v);
// A cache of the shape filled with N(0, 1) noise: reading a wrong slot or position shows.
HostKvCache random_cache(Inputs& in, const KvCacheShape& shape);
// Requests of the given contexts, new-token counts and slots, with random tokens.
RaggedBatch make_batch(const std::vector<int>& contexts, const std::vector<int>& lengths,
                       const std::vector<int>& slots, Inputs& in, int vocab);
// A cache's K values then its V values.
std::vector<float> kv_values(const HostKvCache& cache);
// K then V of positions [0, len) of `slot`, every layer.
std::vector<float> slot_prefix(const HostKvCache& c, int slot, int len);
// The gap between the two largest values of a row (n >= 2): of logits, or of log-probabilities.
double top_two_gap(const double* row, int n);

// n values ~ center + scale * N(0, 1) drawn from `rng`, rounded to bf16 (the one normal draw of
// the checks: Inputs::normal and the autoregressive-drafter checks' engine), and a cache of
// N(0, 1) noise from them (K then V).
std::vector<float> bf16_normal(std::mt19937_64& rng, std::size_t n, double scale,
                               double center = 0.0);
HostKvCache random_cache(std::mt19937_64& rng, const KvCacheShape& shape);
// Uniform on [lo, hi] from `rng`'s bits (no library distribution).
int uniform_int(std::mt19937_64& rng, int lo, int hi);
// Rejection outcomes against the reference's on the same batch: accepted counts exact; a
// committed token may differ only where u * total lies within kRejectionBoundaryMargin of a CDF
// boundary of the reference's residual (or bonus) distribution. error = mismatching requests.
CheckResult compare_rejection(const std::string& name, const RejectionBatch& batch,
                              const RejectionResult& ref, const RejectionResult& got);
// Marks `r` failed and appends `why` to its detail.
void add_failure(CheckResult& r, const std::string& why);

}  // namespace sparksim::kernels::checks
