// The admission order as a heap of the request heads (std::push_heap / std::pop_heap).
#include "policies/candidate_merge.hpp"

namespace sparksim {

void CandidateMerge::reset(std::span<const float* const> rows, std::span<const int> first,
                           std::span<const int> positive,
                           std::span<const std::uint64_t> request_ids) {
  rows_ = rows.data();
  positive_ = positive.data();
  heads_.clear();
  for (std::size_t r = 0; r < positive.size(); ++r) {
    const int j = first.empty() ? 0 : first[r];
    if (j >= positive[r]) continue;
    heads_.push_back(Head{rows[r][j], static_cast<std::uint32_t>(j + 1), request_ids[r],
                          static_cast<std::uint32_t>(r)});
  }
  std::make_heap(heads_.begin(), heads_.end(), ranks_after);
}

void CandidateMerge::advance() {
  std::pop_heap(heads_.begin(), heads_.end(), ranks_after);
  Head& head = heads_.back();
  if (static_cast<int>(head.position) < positive_[head.request]) {
    head.survival = rows_[head.request][head.position];  // the next position, 0-based index
    ++head.position;
    std::push_heap(heads_.begin(), heads_.end(), ranks_after);
  } else {
    heads_.pop_back();
  }
}

}  // namespace sparksim
