// Routers: which replica of a pool serves a request. One interface and one explicit registry table
// (round-robin, least-loaded, kv-aware); `--router help` prints the table and an unknown name lists
// the valid ones. A router sees a snapshot of each replica's load taken at the dispatch instant and
// returns an index into it; it never touches engines, so it is testable without a simulation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/named_spec.hpp"
#include "traces/request_spec.hpp"

namespace sparksim {

// One replica as a router sees it when a request is dispatched.
struct ReplicaLoad {
  std::int64_t outstanding_tokens = 0;  // prompts still to prefill + outputs still to generate
  std::int64_t kv_reserved_tokens = 0;  // held by running requests, plus what queued ones need
  std::int64_t kv_capacity_tokens = 0;
  std::int64_t running = 0;
  std::int64_t waiting = 0;
  // Negative when the queue alone wants more than the replica holds.
  std::int64_t kv_free_tokens() const { return kv_capacity_tokens - kv_reserved_tokens; }
};

// True when replica `a` is strictly preferred to replica `b` (a strict weak order).
using LoadPreference = bool (*)(const ReplicaLoad& a, const ReplicaLoad& b);

// The preferences of `least-loaded` and `kv-aware` (router.cpp says why each), here rather than in
// router.cpp so that the load tournament can inline them: through the pointer, each match's
// unpredictable outcome is a mispredicted branch about half the time (sim/cluster/README.md).
// Fewest outstanding tokens (work queued or running, in tokens still to compute).
inline bool fewer_outstanding(const ReplicaLoad& a, const ReplicaLoad& b) {
  return a.outstanding_tokens < b.outstanding_tokens;
}
// Most free KV; ties by fewest outstanding tokens.
inline bool more_free_kv(const ReplicaLoad& a, const ReplicaLoad& b) {
  return a.kv_free_tokens() > b.kv_free_tokens() ||
         (a.kv_free_tokens() == b.kv_free_tokens() && a.outstanding_tokens < b.outstanding_tokens);
}

class Router {
 public:
  virtual ~Router() = default;
  // Returns the index in [0, replicas.size()) of the replica that serves `request`. Precondition:
  // replicas is not empty. Ties go to the lowest index, so a choice is a pure function of the
  // router's history and the snapshot.
  virtual std::size_t route(const RequestSpec& request, std::span<const ReplicaLoad> replicas) = 0;
  // A router whose choice is "the most preferred replica, ties to the lowest index", whatever the
  // request and its history, returns its preference; the cluster loop then keeps the pool in a
  // tournament tree (sim/cluster/load_tournament.hpp) and picks in O(log replicas) without a
  // snapshot. route() must return what that pick returns (tests/cluster/router_test.cpp checks).
  virtual LoadPreference preference() const { return nullptr; }
};

struct RouterRow {
  std::string_view name;
  std::string_view description;
  std::unique_ptr<Router> (*make)(const NamedSpec&);
};

std::span<const RouterRow> router_registry();

// Finds the row for spec.name(); throws InputError listing the valid names if there is none.
const RouterRow& find_router(const NamedSpec& spec);

// Parses, validates (no unknown parameters) and builds a router.
std::unique_ptr<Router> make_router(const NamedSpec& spec);

// One line per row: name and description. For `--router help`.
std::string describe_routers();

}  // namespace sparksim
