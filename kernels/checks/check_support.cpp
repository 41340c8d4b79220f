// The shared inputs of the kernel comparisons (check_support.hpp).
#include "kernels/checks/check_support.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

#include "common/random_bits.hpp"
#include "kernels/bf16.hpp"
#include "kernels/kernel_tolerances.hpp"
#include "kernels/reference/ops_ref.hpp"

namespace sparksim::kernels::checks {

std::vector<float> Inputs::normal(std::size_t n, double scale, double center) {
  return bf16_normal(rng_, n, scale, center);
}

int Inputs::integer(int lo, int hi) {
  return uniform_int(rng_, lo, hi);
}

double Inputs::uniform() {
  return uniform01_from_bits(rng_());
}

std::vector<float> Inputs::distribution(int vocab) {
  const std::vector<double> logits = widen(normal(static_cast<std::size_t>(vocab), 2.0));
  std::vector<double> p(logits.size());
  softmax_ref(logits.data(), vocab, 1.0, p.data());
  return {p.begin(), p.end()};
}

std::vector<double> widen(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

HostKvCache random_cache(Inputs& in, const KvCacheShape& shape) {
  HostKvCache cache(shape);
  cache.k = in.normal(cache.k.size());
  cache.v = in.normal(cache.v.size());
  return cache;
}

// Documented transforms of the engine's bits (common/random_bits.hpp), not a library
// distribution: the kernels-only build on a bare GPU machine (scripts/gpu_calibrate.sh's
// fallback) has no Boost, and std::normal_distribution's output differs between standard
// libraries. Box-Muller over two 53-bit uniforms (1 - u keeps the logarithm finite).
std::vector<float> bf16_normal(std::mt19937_64& rng, std::size_t n, double scale, double center) {
  std::vector<float> out(n);
  for (float& v : out) {
    const double u1 = 1.0 - uniform01_from_bits(rng());
    const double u2 = uniform01_from_bits(rng());
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    v = round_to_bf16(static_cast<float>(center + scale * z));
  }
  return out;
}

// Uniform on [lo, hi] by rejection: draws above the largest multiple of the range are redrawn, so
// every value is equally likely.
int uniform_int(std::mt19937_64& rng, int lo, int hi) {
  const std::uint64_t range = static_cast<std::uint64_t>(hi - lo) + 1;
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % range;
  std::uint64_t bits = rng();
  while (bits >= limit) bits = rng();
  return lo + static_cast<int>(bits % range);
}

HostKvCache random_cache(std::mt19937_64& rng, const KvCacheShape& shape) {
  HostKvCache cache(shape);
  cache.k = bf16_normal(rng, cache.k.size(), 1.0);
  cache.v = bf16_normal(rng, cache.v.size(), 1.0);
  return cache;
}

RaggedBatch make_batch(const std::vector<int>& contexts, const std::vector<int>& lengths,
                       const std::vector<int>& slots, Inputs& in, int vocab) {
  RaggedBatch b;
  b.context_lens = contexts;
  b.slots = slots;
  b.cu_seqlens = {0};
  for (int len : lengths) {
    b.cu_seqlens.push_back(b.cu_seqlens.back() + len);
    for (int i = 0; i < len; ++i) b.tokens.push_back(in.integer(0, vocab - 1));
  }
  return b;
}

std::vector<float> kv_values(const HostKvCache& cache) {
  std::vector<float> out = cache.k;
  out.insert(out.end(), cache.v.begin(), cache.v.end());
  return out;
}

std::vector<float> slot_prefix(const HostKvCache& c, int slot, int len) {
  std::vector<float> out;
  const auto n = static_cast<std::ptrdiff_t>(len) * c.shape.kv_heads * c.shape.head_dim;
  for (int l = 0; l < c.shape.layers; ++l) {
    const auto at = static_cast<std::ptrdiff_t>(c.shape.offset(l, slot, 0));
    for (const auto* values : {&c.k, &c.v}) {
      out.insert(out.end(), values->begin() + at, values->begin() + at + n);
    }
  }
  return out;
}

double top_two_gap(const double* row, int n) {
  std::vector<double> v(row, row + n);
  std::partial_sort(v.begin(), v.begin() + 2, v.end(), std::greater<>());
  return v[0] - v[1];
}

namespace {

// The reference's committed token may differ from the kernel's only at a CDF boundary.
bool at_cdf_boundary(const RejectionBatch& b, int q, int accepted) {
  const int row = b.cu_seqlens[q] + accepted;
  const int drafts = b.cu_seqlens[q + 1] - b.cu_seqlens[q] - 1;
  const auto v = static_cast<std::size_t>(b.vocab);
  std::vector<double> w(v);
  for (std::size_t j = 0; j < v; ++j) {
    const double pt = b.p_target[static_cast<std::size_t>(row) * v + j];
    const double pd =
        accepted < drafts
            ? b.p_draft[static_cast<std::size_t>(b.cu_seqlens[q] - q + accepted) * v + j]
            : 0.0;
    w[j] = std::max(0.0, pt - pd);
  }
  return inverse_cdf_margin_ref(w.data(), b.vocab, b.sample_uniforms[q]) <
         tolerance::kRejectionBoundaryMargin;
}

}  // namespace

CheckResult compare_rejection(const std::string& name, const RejectionBatch& b,
                              const RejectionResult& ref, const RejectionResult& got) {
  CheckResult r{name, "mismatches", 0.0, 0.0, true, ""};
  for (int q = 0; q < b.requests(); ++q) {
    bool ok = got.accepted[q] == ref.accepted[q];
    if (ok && got.committed[q] != ref.committed[q]) ok = at_cdf_boundary(b, q, ref.accepted[q]);
    if (!ok) {
      r.error += 1.0;
      r.detail += "request " + std::to_string(q) + ": gpu (" + std::to_string(got.accepted[q]) +
                  ", " + std::to_string(got.committed[q]) + ") ref (" +
                  std::to_string(ref.accepted[q]) + ", " + std::to_string(ref.committed[q]) + "); ";
    }
  }
  r.passed = r.error == 0.0;
  return r;
}

void add_failure(CheckResult& r, const std::string& why) {
  r.passed = false;
  r.detail += (r.detail.empty() ? "" : "; ") + why;
}

}  // namespace sparksim::kernels::checks
