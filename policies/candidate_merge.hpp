// Draft candidates (r, j) in DSpark's admission order, produced lazily by a k-way merge.
// The order is: survival a_{r,j} = Π_{i≤j} c_{r,i} descending, then earlier position, then lower
// request id. Survival never grows along a request, so each request's candidates are already in
// that order, and a heap of the request heads yields the global order one candidate at a time: a
// policy that stops early never pays for ordering the candidates it does not look at.
// Survivals are float products of the float confidences (the value ranked is the value summed).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace sparksim {

// c clamped to [0, 1]; a NaN (and -0) counts as 0. With SSE, maxss (which returns its second
// operand, 0, when c is NaN or not above 0) then minss: no branch, where the plain expression
// compiles to two (GCC keeps a NaN-exact ?: as a branch).
inline float clamp_confidence(float c) {
#if defined(__SSE2__)
  return _mm_cvtss_f32(_mm_min_ss(_mm_max_ss(_mm_set_ss(c), _mm_setzero_ps()), _mm_set_ss(1.0f)));
#else
  return c > 0.0f ? std::min(c, 1.0f) : 0.0f;  // `c > 0` is false for NaN
#endif
}

// compute_survivals for γ = kGamma (0: `gamma`): a fixed size unrolls, so the loop's exit is not a
// branch per row (γ = 7, dspark-7's block, is the replay benchmarks').
template <int kGamma>
inline int compute_survivals_of_size(const float* confidences, int gamma, float* survivals,
                                     double* sum, double* prefix, float* copy) {
  const int size = kGamma > 0 ? kGamma : gamma;
  float a = 1.0f;
  double total = 0.0;
  if (prefix != nullptr) prefix[0] = 0.0;
  // Without a copy the survivals are stored twice in place: a store, cheaper than a test per step.
  float* const second = copy != nullptr ? copy : survivals;
  for (int k = 0; k < size; ++k) {
    a *= clamp_confidence(confidences[k]);
    survivals[k] = a;
    second[k] = a;
    total += a;
    if (prefix != nullptr) prefix[k + 1] = total;
  }
  if (sum != nullptr) *sum = total;
  // Survivals never grow and are never NaN, so the positive ones are all but the trailing zeros
  // (usually none: counting them after the loop keeps the loop short).
  int positive = size;
  while (positive > 0 && survivals[positive - 1] == 0.0f) --positive;
  return positive;
}

// Writes survivals[k] = Π_{i≤k+1} confidences[i] (float arithmetic, left to right) for k < γ and
// returns how many leading survivals are positive. Confidences are clamped to [0, 1] (a NaN counts
// as 0), so the result is non-increasing and the positive ones form a prefix. If `sum` is given it
// receives Σ survivals (double, left to right); if `prefix` is given (γ + 1 entries) it receives
// the partial sums, prefix[k] = Σ of the first k; if `copy` is given the survivals are stored there
// too (cheaper than copying them after: a wide load of just-stored floats waits for the stores to
// reach the cache).
inline int compute_survivals(const float* confidences, int gamma, float* survivals,
                             double* sum = nullptr, double* prefix = nullptr,
                             float* copy = nullptr) {
  if (gamma == 7) {
    return compute_survivals_of_size<7>(confidences, gamma, survivals, sum, prefix, copy);
  }
  return compute_survivals_of_size<0>(confidences, gamma, survivals, sum, prefix, copy);
}

struct Candidate {
  double survival = 0;
  std::uint32_t request = 0;   // index r in the batch
  std::uint32_t position = 0;  // j in 1..γ
};

// The admission order spelled out: true if (survival a, position pa, id ia) is admitted before
// (b, pb, ib). Strict and total over distinct candidates.
inline bool ranks_before(float a, std::uint32_t pa, std::uint64_t ia, float b, std::uint32_t pb,
                         std::uint64_t ib) {
  if (a != b) return a > b;
  if (pa != pb) return pa < pb;
  return ia < ib;
}

class CandidateMerge {
 public:
  // rows[r]: request r's survivals (γ entries, non-increasing); positive[r]: how many lead with a
  // positive value (only those become candidates); ids: distinct. The survivals must stay alive
  // and unchanged while the merge is used.
  void reset(std::span<const float* const> rows, std::span<const int> positive,
             std::span<const std::uint64_t> request_ids) {
    reset(rows, {}, positive, request_ids);
  }
  // The same order restricted to positions first[r] + 1 .. positive[r] of each request (an empty
  // `first` means 0 for all): a suffix of each run, still ranked by absolute position, so the
  // result is exactly the full order with each request's first first[r] candidates removed.
  void reset(std::span<const float* const> rows, std::span<const int> first,
             std::span<const int> positive, std::span<const std::uint64_t> request_ids);

  // Sets lengths[r] so that the first `count` candidates of the order are admitted, when the
  // count-th of them has survival `value`: every candidate above `value` is in, and of those equal
  // to it only the first by the order's tie-breaks (earlier position, then lower id). Only the
  // tied candidates are ordered, so a tie costs a pass over the rows and a sort of a few, not a
  // merge of everything above it. rows[r] holds γ survivals (non-increasing, positive or 0) and
  // may be read up to 3 floats past them; 0 < value, and `count` must not exceed the candidates
  // >= value. (Uses the merge's storage: call reset() before using the merge again.)
  void admit_first(std::span<const float* const> rows, int gamma,
                   std::span<const std::uint64_t> request_ids, std::int64_t count, float value,
                   std::span<int> lengths);

  bool empty() const { return heads_.empty(); }
  // The best remaining candidate; requires !empty().
  Candidate top() const {
    const Head& h = heads_.front();
    return Candidate{h.survival, h.request, h.position};
  }
  // Removes top() and exposes the next position of the same request, if it has one.
  void advance();

 private:
  struct Head {
    float survival;
    std::uint32_t position;  // 1-based
    std::uint64_t id;
    std::uint32_t request;
  };
  // The heap's "less": a ranks after b, so the best candidate sits at the front.
  // (A lambda, not a function: the heap algorithms inline a lambda's call, not a pointer's.)
  static constexpr auto kRanksAfter = [](const Head& a, const Head& b) {
    return ranks_before(b.survival, b.position, b.id, a.survival, a.position, a.id);
  };

  std::vector<Head> heads_;  // a max-heap under kRanksAfter
  const float* const* rows_ = nullptr;
  const int* positive_ = nullptr;
};

}  // namespace sparksim
