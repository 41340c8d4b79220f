// Router registry conformance (every row, so a new router is tested the moment it is listed) and
// each router's rule on hand-made load snapshots, ties included.
#include "sim/cluster/router.hpp"

#include <random>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"

using namespace sparksim;

namespace {

std::unique_ptr<Router> router(const std::string& text) {
  return make_router(NamedSpec::parse(text, "--router"));
}

ReplicaLoad load(std::int64_t outstanding, std::int64_t reserved, std::int64_t capacity = 1000) {
  ReplicaLoad l;
  l.outstanding_tokens = outstanding;
  l.kv_reserved_tokens = reserved;
  l.kv_capacity_tokens = capacity;
  return l;
}

}  // namespace

TEST_CASE("router names are unique and described") {
  std::set<std::string> names;
  for (const auto& row : router_registry()) {
    INFO(row.name);
    CHECK(names.insert(std::string(row.name)).second);
    CHECK_FALSE(row.description.empty());
    CHECK(describe_routers().find(std::string(row.name)) != std::string::npos);
  }
  CHECK(names.count("round-robin") == 1);
  CHECK(names.count("least-loaded") == 1);
  CHECK(names.count("kv-aware") == 1);
}

TEST_CASE("an unknown router lists the valid ones and parameters are not ignored") {
  try {
    router("fastest");
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string message = e.what();
    CHECK(message.find("unknown router 'fastest'") != std::string::npos);
    for (const auto& row : router_registry()) {
      CHECK(message.find(std::string(row.name)) != std::string::npos);
    }
  }
  CHECK_THROWS_AS(router("least-loaded:window=3"), InputError);
}

TEST_CASE("every router picks a valid replica, deterministically, on random snapshots") {
  std::mt19937_64 rng(2024);
  for (const auto& row : router_registry()) {
    auto a = row.make(NamedSpec::parse(std::string(row.name), "--router"));
    auto b = row.make(NamedSpec::parse(std::string(row.name), "--router"));
    for (int trial = 0; trial < 500; ++trial) {
      std::vector<ReplicaLoad> loads(1 + rng() % 9);
      for (auto& l : loads) {
        l = load(static_cast<std::int64_t>(rng() % 5000), static_cast<std::int64_t>(rng() % 900));
        l.running = static_cast<std::int64_t>(rng() % 20);
        l.waiting = static_cast<std::int64_t>(rng() % 20);
      }
      const RequestSpec spec{0, 100, 10, Domain::kChat};
      const std::size_t pick = a->route(spec, loads);
      INFO(row.name << " trial " << trial);
      REQUIRE(pick < loads.size());
      CHECK(b->route(spec, loads) == pick);  // same history, same snapshot, same choice
    }
  }
}

TEST_CASE("round-robin cycles through the replicas whatever their load") {
  auto r = router("round-robin");
  const std::vector<ReplicaLoad> loads = {load(0, 0), load(9999, 999), load(5, 5)};
  const RequestSpec spec{0, 10, 10, Domain::kChat};
  std::vector<std::size_t> picks;
  for (int i = 0; i < 7; ++i) picks.push_back(r->route(spec, loads));
  CHECK(picks == std::vector<std::size_t>{0, 1, 2, 0, 1, 2, 0});
}

TEST_CASE("least-loaded takes the fewest outstanding tokens, ties to the lowest index") {
  auto r = router("least-loaded");
  const RequestSpec spec{0, 10, 10, Domain::kChat};
  CHECK(r->route(spec, std::vector<ReplicaLoad>{load(30, 0), load(20, 900), load(25, 0)}) == 1);
  CHECK(r->route(spec, std::vector<ReplicaLoad>{load(30, 0), load(20, 0), load(20, 0)}) == 1);
  CHECK(r->route(spec, std::vector<ReplicaLoad>{load(0, 0)}) == 0);
}

TEST_CASE("kv-aware takes the most free KV, ties by fewest outstanding tokens, then lowest index") {
  auto r = router("kv-aware");
  const RequestSpec spec{0, 10, 10, Domain::kChat};
  // free KV 900, 950, 940: the second, however loaded.
  CHECK(r->route(spec, std::vector<ReplicaLoad>{load(0, 100), load(5000, 50), load(0, 60)}) == 1);
  // Capacities differ: free = capacity - reserved.
  CHECK(r->route(spec, std::vector<ReplicaLoad>{load(0, 100, 1000), load(0, 100, 2000)}) == 1);
  // Equal free KV: fewer outstanding tokens wins; all equal: the lowest index.
  CHECK(r->route(spec, std::vector<ReplicaLoad>{load(40, 100), load(30, 100), load(35, 100)}) == 1);
  CHECK(r->route(spec, std::vector<ReplicaLoad>{load(30, 100), load(30, 100)}) == 0);
  // A queue wanting more than the capacity makes free KV negative, still comparable.
  CHECK(r->route(spec, std::vector<ReplicaLoad>{load(0, 1500), load(0, 1200)}) == 1);
}
