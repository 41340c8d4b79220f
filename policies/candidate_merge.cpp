// The admission order as a heap of the request heads (std::push_heap / std::pop_heap).
#include "policies/candidate_merge.hpp"

#include "common/count_above.hpp"

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
  std::make_heap(heads_.begin(), heads_.end(), kRanksAfter);
}

void CandidateMerge::advance() {
  std::pop_heap(heads_.begin(), heads_.end(), kRanksAfter);
  Head& head = heads_.back();
  if (static_cast<int>(head.position) < positive_[head.request]) {
    head.survival = rows_[head.request][head.position];  // the next position, 0-based index
    ++head.position;
    std::push_heap(heads_.begin(), heads_.end(), kRanksAfter);
  } else {
    heads_.pop_back();
  }
}

void CandidateMerge::admit_first(std::span<const float* const> rows, int gamma,
                                 std::span<const std::uint64_t> request_ids, std::int64_t count,
                                 float value, std::span<int> lengths) {
  heads_.clear();
  std::int64_t above_total = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const float* row = rows[r];
    const int above = count_above(row, gamma, value);
    lengths[r] = above;
    above_total += above;
    // Survivals never grow, so the ones equal to `value` follow those above it.
    for (int j = above; j < gamma && row[j] == value; ++j) {
      heads_.push_back(Head{value, static_cast<std::uint32_t>(j + 1), request_ids[r],
                            static_cast<std::uint32_t>(r)});
    }
  }
  // The tied ones in order; each request's come by position, so those admitted are a prefix of
  // the request's tied run and the admitted count per request is its length.
  const auto tied = static_cast<std::ptrdiff_t>(count - above_total);
  std::nth_element(heads_.begin(), heads_.begin() + tied, heads_.end(),
                   [](const Head& a, const Head& b) { return kRanksAfter(b, a); });
  for (std::ptrdiff_t k = 0; k < tied; ++k) ++lengths[heads_[static_cast<std::size_t>(k)].request];
  heads_.clear();
}

}  // namespace sparksim
