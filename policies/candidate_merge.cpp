// Merge of per-request survival lists into the global admission order: eager branch-free
// bottom-up merge for small batches, a lazy heap over request heads for large ones.
#include "policies/candidate_merge.hpp"

#include <numeric>
#include <stdexcept>

namespace sparksim {

namespace {

// Merges two descending runs, each followed by a sentinel 0, into `out` (n = na + nb keys, then a
// sentinel). The sentinel takes the place of bounds checks, so the loop has a fixed trip count,
// and the choice is arithmetic (conditional moves), not a branch: on random survivals a branch
// here mispredicts about every other key, which made merging the costliest part of a step.
void merge_runs(const std::uint64_t* a, const std::uint64_t* b, std::size_t n, std::uint64_t* out) {
  std::size_t i = 0;
  std::size_t j = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint64_t x = a[i];
    const std::uint64_t y = b[j];
    const std::uint64_t take_b = static_cast<std::uint64_t>(y > x);
    const std::uint64_t mask = 0 - take_b;  // all ones when b's key is larger
    out[k] = x ^ ((x ^ y) & mask);          // a mask, so the compiler cannot reintroduce a branch
    j += take_b;
    i += 1 - take_b;
  }
  out[n] = 0;
}

}  // namespace

void CandidateMerge::reset(std::span<const float* const> rows, std::span<const int> first,
                           std::span<const int> positive,
                           std::span<const std::uint64_t> request_ids, bool lazy) {
  const std::size_t requests = positive.size();
  if (static_cast<std::int64_t>(requests) > kMaxRequests) {
    throw std::length_error("CandidateMerge: batch too large for the ordering key");
  }
  rows_ = rows.data();
  positive_ = positive.data();
  // Rank of each id within the batch; ids almost always arrive ascending (admission order), and
  // then rank = index and no table is needed.
  rank_to_request_.clear();
  if (!std::is_sorted(request_ids.begin(), request_ids.begin() + requests)) {
    rank_to_request_.resize(requests);
    std::iota(rank_to_request_.begin(), rank_to_request_.end(), 0u);
    std::sort(rank_to_request_.begin(), rank_to_request_.end(),
              [&](std::uint32_t a, std::uint32_t b) { return request_ids[a] < request_ids[b]; });
    rank_.resize(requests);
    for (std::uint32_t i = 0; i < requests; ++i) rank_[rank_to_request_[i]] = i;
  }
  const auto rank_of = [&](std::size_t r) {
    return rank_to_request_.empty() ? static_cast<std::uint32_t>(r) : rank_[r];
  };
  for (std::size_t r = 0; r < requests; ++r) {
    if (positive[r] > kMaxGamma) throw std::length_error("CandidateMerge: gamma too large");
  }
  const auto first_of = [&](std::size_t r) { return first.empty() ? 0 : first[r]; };

  eager_ = !lazy && requests <= kEagerMergeMax;
  if (eager_) {
    std::size_t total = 0;
    for (std::size_t r = 0; r < requests; ++r) {
      total += static_cast<std::size_t>(positive[r] - first_of(r));
    }
    sorted_.resize(total + requests);
    run_ends_.clear();
    std::size_t at = 0;
    for (std::size_t r = 0; r < requests; ++r) {
      if (positive[r] == first_of(r)) continue;
      const std::uint32_t rank = rank_of(r);
      const float* row = rows[r];
      for (int j = first_of(r); j < positive[r]; ++j) {
        sorted_[at++] = make_key(row[j], static_cast<std::uint32_t>(j + 1), rank);
      }
      sorted_[at++] = 0;
      run_ends_.push_back(at);
    }
    eager_count_ = total;
    merge_all();
    cursor_ = 0;
    return;
  }
  heads_.clear();
  for (std::size_t r = 0; r < requests; ++r) {
    const int j = first_of(r);
    if (positive[r] == j) continue;
    heads_.push_back(Entry{make_key(rows[r][j], static_cast<std::uint32_t>(j + 1), rank_of(r)),
                           static_cast<std::uint32_t>(r)});
  }
  best_ = 0;
  scan_ = requests <= kScanMax;
  if (scan_) {
    if (!heads_.empty()) find_best();
    return;
  }
  std::make_heap(heads_.begin(), heads_.end(),
                 [](const Entry& a, const Entry& b) { return a.key < b.key; });
}

void CandidateMerge::merge_all() {
  // Bottom-up: merge neighbouring runs pairwise until one is left (⌈log2 runs⌉ passes).
  buffer_.resize(sorted_.size());
  std::vector<std::size_t>& ends = run_ends_;
  while (ends.size() > 1) {
    std::size_t start = 0;
    std::size_t out = 0;
    std::size_t runs = 0;
    for (std::size_t k = 0; k < ends.size(); k += 2) {
      if (k + 1 == ends.size()) {  // odd run out: carried over as is
        for (std::size_t i = start; i < ends[k]; ++i) buffer_[out++] = sorted_[i];
        ends[runs++] = out;
        break;
      }
      const std::size_t na = ends[k] - 1 - start;
      const std::size_t nb = ends[k + 1] - 1 - ends[k];
      merge_runs(&sorted_[start], &sorted_[ends[k]], na + nb, &buffer_[out]);
      out += na + nb + 1;
      ends[runs++] = out;
      start = ends[k + 1];
    }
    ends.resize(runs);
    sorted_.swap(buffer_);
  }
}

}  // namespace sparksim
