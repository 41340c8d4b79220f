// LoadTournament: a pool of replicas' loads in a tournament tree (a complete binary tree whose
// every node holds the most preferred position of its subtree, ties to the left), so a router with
// a fixed preference picks in O(1) and a replica whose load changed costs O(log replicas). The
// winner is what a scan from the lowest position keeping the first strictly preferred one returns:
// under a strict weak order both are the lowest position among the most preferred.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/cluster/router.hpp"

namespace sparksim {

class LoadTournament {
 public:
  // `loads` is the pool's load per position, owned by the caller and read on every update; it
  // must keep its size and address while this tree is in use.
  LoadTournament(LoadPreference prefers, const std::vector<ReplicaLoad>& loads);

  // loads[position] changed: replay its matches up to the root.
  void update(std::size_t position);
  // Every position may have changed: replay every match (O(positions)).
  void rebuild();
  std::size_t winner() const { return nodes_[1]; }

 private:
  static constexpr std::uint32_t kEmpty = UINT32_MAX;  // a leaf past the pool's end
  // Calls visit(prefers) with the preference as a callable the compiler can inline (the routers'
  // own, router.hpp) or, for any other, the pointer itself.
  template <typename Visit>
  void with_preference(Visit visit);
  template <typename Prefers>
  std::uint32_t match(Prefers prefers, std::uint32_t left, std::uint32_t right) const;
  template <typename Prefers>
  void replay_path(Prefers prefers, std::size_t position);
  template <typename Prefers>
  void replay_all(Prefers prefers);

  LoadPreference prefers_;
  const std::vector<ReplicaLoad>& loads_;
  std::size_t leaves_ = 1;            // a power of two >= the pool's size
  std::vector<std::uint32_t> nodes_;  // 1-based heap layout; leaves at [leaves_, 2 leaves_)
};

}  // namespace sparksim
