// The tournament tree picks what a scan picks: for every registry router with a preference, over
// random pools (sizes that are and are not powers of two) and random load changes, applied one at
// a time (update) or many at once (update per position in any order, or rebuild), its winner equals
// the router's route() on the same snapshot, a plain scan that keeps the first strictly preferred
// replica. Loads are drawn from a small range so ties (to the lowest index) are frequent.
#include "sim/cluster/load_tournament.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

using namespace sparksim;

namespace {

ReplicaLoad random_load(std::mt19937_64& rng) {
  std::uniform_int_distribution<std::int64_t> small(0, 4);
  ReplicaLoad l;
  l.outstanding_tokens = small(rng);
  l.kv_reserved_tokens = small(rng);
  l.kv_capacity_tokens = 4;
  return l;
}

}  // namespace

TEST_CASE("a load tournament's winner is the router's scan over the same loads") {
  int routers_with_preference = 0;
  for (const RouterRow& row : router_registry()) {
    const auto router = row.make(NamedSpec::parse(std::string(row.name), "--router"));
    const LoadPreference prefers = router->preference();
    if (!prefers) continue;
    ++routers_with_preference;
    std::mt19937_64 rng(17);
    for (const std::size_t size : {1u, 2u, 3u, 7u, 8u, 64u, 100u, 1000u}) {
      INFO(row.name << ", " << size << " replicas");
      std::vector<ReplicaLoad> loads(size);
      for (ReplicaLoad& l : loads) l = random_load(rng);
      LoadTournament tree(prefers, loads);
      const RequestSpec request;
      REQUIRE(tree.winner() == router->route(request, loads));
      std::uniform_int_distribution<std::size_t> position(0, size - 1);
      for (int round = 0; round < 300; ++round) {
        // Change 1 to 5 positions, then bring the tree up to date as the cluster loop does.
        std::vector<std::size_t> changed;
        const int count = 1 + round % 5;
        for (int c = 0; c < count; ++c) {
          const std::size_t p = position(rng);
          loads[p] = random_load(rng);
          changed.push_back(p);
        }
        if (round % 7 == 6) {
          tree.rebuild();
        } else {
          std::shuffle(changed.begin(), changed.end(), rng);
          for (const std::size_t p : changed) tree.update(p);
        }
        REQUIRE(tree.winner() == router->route(request, loads));
      }
    }
  }
  CHECK(routers_with_preference == 2);  // least-loaded and kv-aware
}
