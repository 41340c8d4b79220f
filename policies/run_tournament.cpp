// The tournament tree: built bottom-up, one path replayed per take.
#include "policies/run_tournament.hpp"

#include <algorithm>
#include <bit>

namespace sparksim {

namespace {
// Settles the match at node `parent` between its children 2·parent and 2·parent + 1: the larger
// value wins (on a tie the left, both offering the same value). The winner's index is arithmetic
// on the comparison, not a branch (a select of the two compiles to one).
inline void play(float* value, std::uint32_t* run, std::size_t parent) {
  const std::size_t left = 2 * parent;
  const std::size_t winner = left + static_cast<std::size_t>(value[left + 1] > value[left]);
  value[parent] = value[winner];
  run[parent] = run[winner];
}
}  // namespace

void RunTournament::reset(const float* values, std::span<const std::uint32_t> starts) {
  values_ = values;
  leaves_ = std::bit_ceil(std::max<std::size_t>(starts.size(), 1));
  value_.assign(2 * leaves_, 0.0f);
  run_.assign(2 * leaves_, 0);
  next_.assign(starts.begin(), starts.end());
  for (std::size_t k = 0; k < starts.size(); ++k) {
    value_[leaves_ + k] = values[starts[k]];
    run_[leaves_ + k] = static_cast<std::uint32_t>(k);
  }
  // Leaves past the runs offer 0 and never win over a value left.
  for (std::size_t i = leaves_ - 1; i >= 1; --i) play(value_.data(), run_.data(), i);
}

void RunTournament::pop() {
  const std::uint32_t k = run_[1];
  std::size_t node = leaves_ + k;
  value_[node] = values_[++next_[k]];
  // The same number of matches every take (the tree's depth): the loop's exit predicts.
  for (node /= 2; node >= 1; node /= 2) play(value_.data(), run_.data(), node);
}

}  // namespace sparksim
