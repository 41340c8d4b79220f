// The tournament tree over a pool's loads (see the header for why it equals route()'s scan).
#include "sim/cluster/load_tournament.hpp"

#include <stdexcept>

namespace sparksim {

LoadTournament::LoadTournament(LoadPreference prefers, const std::vector<ReplicaLoad>& loads)
    : prefers_(prefers), loads_(loads) {
  if (loads_.empty() || loads_.size() >= kEmpty) {
    throw std::invalid_argument("a load tournament needs between 1 and 2^32 - 2 positions");
  }
  while (leaves_ < loads_.size()) leaves_ *= 2;
  nodes_.assign(2 * leaves_, kEmpty);
  for (std::size_t i = 0; i < loads_.size(); ++i)
    nodes_[leaves_ + i] = static_cast<std::uint32_t>(i);
  rebuild();
}

template <typename Visit>
void LoadTournament::with_preference(Visit visit) {
  if (prefers_ == &fewer_outstanding) {
    visit([](const ReplicaLoad& a, const ReplicaLoad& b) { return fewer_outstanding(a, b); });
  } else if (prefers_ == &more_free_kv) {
    visit([](const ReplicaLoad& a, const ReplicaLoad& b) { return more_free_kv(a, b); });
  } else {
    visit(prefers_);
  }
}

// The left subtree holds the lower positions, so the left wins unless the right is strictly
// preferred.
template <typename Prefers>
std::uint32_t LoadTournament::match(Prefers prefers, std::uint32_t left,
                                    std::uint32_t right) const {
  if (right == kEmpty) return left;
  return prefers(loads_[right], loads_[left]) ? right : left;
}

template <typename Prefers>
void LoadTournament::replay_path(Prefers prefers, std::size_t position) {
  for (std::size_t node = (leaves_ + position) / 2; node >= 1; node /= 2) {
    const std::uint32_t winner = match(prefers, nodes_[2 * node], nodes_[2 * node + 1]);
    // The same winner, whose load did not change: every match above sees what it saw before.
    if (winner == nodes_[node] && winner != position) return;
    nodes_[node] = winner;
  }
}

template <typename Prefers>
void LoadTournament::replay_all(Prefers prefers) {
  for (std::size_t node = leaves_ - 1; node >= 1; --node) {
    nodes_[node] = match(prefers, nodes_[2 * node], nodes_[2 * node + 1]);
  }
}

void LoadTournament::update(std::size_t position) {
  with_preference([&](auto prefers) { replay_path(prefers, position); });
}

void LoadTournament::rebuild() {
  with_preference([&](auto prefers) { replay_all(prefers); });
}

}  // namespace sparksim
