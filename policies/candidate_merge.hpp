// Draft candidates (r, j) in DSpark's admission order, produced lazily by a k-way merge.
// The order is: survival a_{r,j} = Π_{i≤j} c_{r,i} descending, then earlier position, then lower
// request id. Survival never grows along a request, so each request's candidates are already in
// that order. Small batches (the common case in light traffic) merge all runs at once with a
// branch-free bottom-up merge; larger ones keep the R request heads in a heap, so a policy that
// stops early never pays for ordering the candidates it does not look at.
// Survivals are float products of the float confidences (the value ranked is the value summed).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace sparksim {

// c clamped to [0, 1], a NaN to 0, without a branch (maxss returns its second operand, 0, when
// the first is NaN).
inline float clamp_confidence(float c) {
#if defined(__SSE2__)
  return _mm_cvtss_f32(_mm_min_ss(_mm_max_ss(_mm_set_ss(c), _mm_setzero_ps()), _mm_set_ss(1.0f)));
#else
  return c >= 0.0f ? std::min(c, 1.0f) : 0.0f;  // `c >= 0` is false for NaN
#endif
}

// compute_survivals for a block of kGamma positions (0: `gamma`); fixed sizes unroll.
template <int kGamma>
inline int compute_survivals_of_size(const float* confidences, int gamma, float* survivals,
                                     double* sum, double* prefix, float* copy) {
  const int size = kGamma > 0 ? kGamma : gamma;
  float a = 1.0f;
  double total = 0.0;
  int positive = 0;
  for (int k = 0; k < size; ++k) {
    a *= clamp_confidence(confidences[k]);
    survivals[k] = a;
    if (copy != nullptr) copy[k] = a;
    total += a;
    if (prefix != nullptr) prefix[k + 1] = total;
    positive += a > 0.0f ? 1 : 0;
  }
  if (sum != nullptr) *sum = total;
  if (prefix != nullptr) prefix[0] = 0.0;
  return positive;
}

// Writes survivals[k] = Π_{i≤k+1} confidences[i] (float arithmetic, left to right) for k < γ and
// returns how many leading survivals are positive. Confidences are clamped to [0, 1] (a NaN counts
// as 0), so the result is non-increasing and the positive ones form a prefix. If `sum` is given it
// receives Σ survivals (double), accumulated alongside the product at no extra latency; if
// `prefix` is given (γ + 1 entries) it receives the partial sums, prefix[k] = Σ of the first k;
// if `copy` is given the survivals are stored there too (cheaper than copying them after: a wide
// load of just-stored floats waits for the stores to reach the cache).
inline int compute_survivals(const float* confidences, int gamma, float* survivals,
                             double* sum = nullptr, double* prefix = nullptr,
                             float* copy = nullptr) {
  switch (gamma) {  // the common block sizes, unrolled
    case 5:
      return compute_survivals_of_size<5>(confidences, gamma, survivals, sum, prefix, copy);
    case 7:
      return compute_survivals_of_size<7>(confidences, gamma, survivals, sum, prefix, copy);
    default:
      return compute_survivals_of_size<0>(confidences, gamma, survivals, sum, prefix, copy);
  }
}

struct Candidate {
  double survival = 0;
  std::uint32_t request = 0;   // index r in the batch
  std::uint32_t position = 0;  // j in 1..γ
};

// The admission order spelled out (the reference the merge is tested against): true if (survival
// a, position pa, id ia) is admitted before (b, pb, ib). Strict and total over distinct candidates.
inline bool ranks_before(float a, std::uint32_t pa, std::uint64_t ia, float b, std::uint32_t pb,
                         std::uint64_t ib) {
  if (a != b) return a > b;
  if (pa != pb) return pa < pb;
  return ia < ib;
}

class CandidateMerge {
 public:
  // Largest γ and batch the packed ordering key can hold.
  static constexpr int kMaxGamma = 255;
  static constexpr std::int64_t kMaxRequests = (std::int64_t{1} << 24) - 1;
  // Up to this many requests every candidate is ordered up front by a branch-free merge of the
  // per-request runs; beyond it the heads sit in a binary heap and are ordered lazily.
  static constexpr std::size_t kEagerMergeMax = 16;
  // A lazy merge of up to this many requests finds the best head by a scan instead of a heap.
  static constexpr std::size_t kScanMax = 8;

  // rows[r]: request r's survivals (γ entries, non-increasing); positive[r]: how many lead with a
  // positive value (only those become candidates); ids: distinct. The survivals must stay alive
  // and unchanged while the merge is used. Throws std::length_error beyond kMaxGamma/kMaxRequests.
  void reset(std::span<const float* const> rows, std::span<const int> positive,
             std::span<const std::uint64_t> request_ids) {
    reset(rows, {}, positive, request_ids);
  }
  // The same order restricted to positions first[r] + 1 .. positive[r] of each request (an empty
  // `first` means 0 for all): a suffix of each run, still ranked by absolute position, so the
  // result is exactly the full order with each request's first first[r] candidates removed.
  // `lazy` keeps the heads in the heap whatever the batch size: for a caller that will look at
  // only a few candidates.
  void reset(std::span<const float* const> rows, std::span<const int> first,
             std::span<const int> positive, std::span<const std::uint64_t> request_ids,
             bool lazy = false);

  bool empty() const { return eager_ ? cursor_ == eager_count_ : heads_.empty(); }
  // The best remaining candidate; requires !empty().
  Candidate top() const {
    if (eager_) {
      const std::uint64_t key = sorted_[cursor_];
      return Candidate{survival_of(key), request_of(key), position_of(key)};
    }
    const Entry& e = heads_[best_];
    return Candidate{survival_of(e.key), e.request, position_of(e.key)};
  }
  // Removes top() and exposes the next position of the same request, if it has one.
  void advance() {
    if (eager_) {
      ++cursor_;
      return;
    }
    Entry& head = heads_[best_];
    const std::uint32_t position = position_of(head.key);
    if (static_cast<int>(position) < positive_[head.request]) {
      head.key = next_key(head, position);  // ranks after the one it replaces: sift down only
    } else {
      head = heads_.back();
      heads_.pop_back();
      if (heads_.empty()) return;
    }
    if (scan_) {
      find_best();
    } else {
      sift_down(0);
    }
  }

 private:
  // One ordering key per candidate, larger = admitted first: survival's float bits (monotone for
  // non-negative floats), then 255 - position, then 2^24 - 1 - the id's rank within the batch.
  // Comparing one integer keeps the merge free of data-dependent branches.
  struct Entry {
    std::uint64_t key;
    std::uint32_t request;
  };
  static std::uint64_t survival_key(float survival) {
    return static_cast<std::uint64_t>(std::bit_cast<std::uint32_t>(survival)) << 32;
  }
  static double survival_of(std::uint64_t key) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(key >> 32));
  }
  static std::uint32_t position_of(std::uint64_t key) {
    return 255u - static_cast<std::uint32_t>((key >> 24) & 0xffu);
  }
  static std::uint64_t make_key(float survival, std::uint32_t position, std::uint32_t rank) {
    return survival_key(survival) | (std::uint64_t{255u - position} << 24) | (0xffffffu - rank);
  }
  // The batch index of the request with that rank within the batch (0 = lowest id).
  std::uint32_t request_of_rank(std::uint32_t rank) const {
    return rank_to_request_.empty() ? rank : rank_to_request_[rank];
  }
  std::uint32_t request_of(std::uint64_t key) const {
    return request_of_rank(0xffffffu - static_cast<std::uint32_t>(key & 0xffffffu));
  }
  std::uint64_t next_key(const Entry& head, std::uint32_t position) const {
    return survival_key(rows_[head.request][position]) | (std::uint64_t{254u - position} << 24) |
           (head.key & 0xffffffu);
  }
  void merge_all();
  // Scan mode: best_ = the head with the largest key, by a branch-free pass over the few heads.
  void find_best() {
    std::size_t best = 0;
    std::uint64_t best_key = heads_[0].key;
    for (std::size_t i = 1; i < heads_.size(); ++i) {
      const bool larger = heads_[i].key > best_key;
      best = larger ? i : best;
      best_key = larger ? heads_[i].key : best_key;
    }
    best_ = best;
  }
  void sift_down(std::size_t i) {
    const std::size_t n = heads_.size();
    const Entry moving = heads_[i];
    while (true) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      child += static_cast<std::size_t>(child + 1 < n && heads_[child + 1].key > heads_[child].key);
      if (heads_[child].key <= moving.key) break;
      heads_[i] = heads_[child];
      i = child;
    }
    heads_[i] = moving;
  }

  bool eager_ = true;
  // Eager mode: runs of keys, each followed by a sentinel 0 (below every real key, whose survival
  // bits are positive), merged pairwise until one descending run of eager_count_ keys is left.
  std::vector<std::uint64_t> sorted_;
  std::vector<std::uint64_t> buffer_;  // merge scratch
  std::vector<std::size_t> run_ends_;  // one past each run's sentinel
  std::size_t eager_count_ = 0;
  std::size_t cursor_ = 0;
  // Lazy: the request heads, a max-heap on key (best_ = 0), or for a few requests (scan_) in any
  // order with best_ the largest, found by a scan that costs less than sifting a small heap.
  std::vector<Entry> heads_;
  bool scan_ = false;
  std::size_t best_ = 0;
  std::vector<std::uint32_t> rank_to_request_;  // empty when ids arrive ascending (rank = index)
  std::vector<std::uint32_t> rank_;
  const float* const* rows_ = nullptr;
  const int* positive_ = nullptr;
};

}  // namespace sparksim
