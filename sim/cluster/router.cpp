// The router table and its three routers. Adding one: a class here (or a file pair) plus one row;
// the registry conformance test (tests/cluster/router_test.cpp) then exercises it.
#include "sim/cluster/router.hpp"

#include <array>

#include "common/input_error.hpp"

namespace sparksim {

namespace {

// Replicas in turn, whatever their load: the baseline, and what splitting a trace by hand gives.
class RoundRobinRouter final : public Router {
 public:
  std::size_t route(const RequestSpec&, std::span<const ReplicaLoad> replicas) override {
    return next_++ % replicas.size();
  }

 private:
  std::size_t next_ = 0;
};

// The most preferred replica, ties to the lowest index: a scan (route()'s reference form).
template <LoadPreference kPrefers>
class PreferenceRouter : public Router {
 public:
  std::size_t route(const RequestSpec&, std::span<const ReplicaLoad> replicas) override {
    std::size_t best = 0;
    for (std::size_t i = 1; i < replicas.size(); ++i) {
      if (kPrefers(replicas[i], replicas[best])) best = i;
    }
    return best;
  }
  LoadPreference preference() const override { return kPrefers; }
};

// Fewest outstanding tokens (work queued or running, in tokens still to compute; router.hpp).
class LeastLoadedRouter final : public PreferenceRouter<&fewer_outstanding> {};

// Most free KV (capacity minus what running requests reserve and queued ones will); ties by fewest
// outstanding tokens. Counting the queue matters: a replica in the middle of a step admits nobody
// until it ends, so without it every arrival meanwhile would herd to the same replica (router.hpp).
class KvAwareRouter final : public PreferenceRouter<&more_free_kv> {};

template <typename R>
std::unique_ptr<Router> make_plain(const NamedSpec& spec) {
  spec.reject_unknown_keys();
  return std::make_unique<R>();
}

const std::array<RouterRow, 3> kRouters = {{
    {"round-robin", "replicas in turn, whatever their load", &make_plain<RoundRobinRouter>},
    {"least-loaded",
     "fewest outstanding tokens (prompt tokens still to prefill + output tokens still to "
     "generate); ties to the lowest replica index",
     &make_plain<LeastLoadedRouter>},
    {"kv-aware",
     "most free KV cache (capacity minus what running requests reserve and queued requests "
     "will reserve); ties by fewest outstanding tokens, then the lowest replica index",
     &make_plain<KvAwareRouter>},
}};

}  // namespace

std::span<const RouterRow> router_registry() {
  return kRouters;
}

const RouterRow& find_router(const NamedSpec& spec) {
  for (const auto& row : kRouters) {
    if (row.name == spec.name()) return row;
  }
  std::string valid;
  for (const auto& row : kRouters) valid += (valid.empty() ? "" : ", ") + std::string(row.name);
  throw InputError("--router: unknown router '" + spec.name() + "'; valid: " + valid +
                   " (--router help describes each)");
}

std::unique_ptr<Router> make_router(const NamedSpec& spec) {
  return find_router(spec).make(spec);
}

std::string describe_routers() {
  std::string out;
  for (const auto& row : kRouters) {
    out += std::string(row.name) + "\n    " + std::string(row.description) + "\n";
  }
  return out;
}

}  // namespace sparksim
