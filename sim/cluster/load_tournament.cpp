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

// The left subtree holds the lower positions, so the left wins unless the right is strictly
// preferred.
std::uint32_t LoadTournament::match(std::uint32_t left, std::uint32_t right) const {
  if (right == kEmpty) return left;
  return prefers_(loads_[right], loads_[left]) ? right : left;
}

void LoadTournament::update(std::size_t position) {
  for (std::size_t node = (leaves_ + position) / 2; node >= 1; node /= 2) {
    const std::uint32_t winner = match(nodes_[2 * node], nodes_[2 * node + 1]);
    // The same winner, whose load did not change: every match above sees what it saw before.
    if (winner == nodes_[node] && winner != position) return;
    nodes_[node] = winner;
  }
}

void LoadTournament::rebuild() {
  for (std::size_t node = leaves_ - 1; node >= 1; --node) {
    nodes_[node] = match(nodes_[2 * node], nodes_[2 * node + 1]);
  }
}

}  // namespace sparksim
