// The cluster's event loop: many engines (replicas), a router choosing one for each arrival, and,
// with disaggregated prefill, the hand-off of each prompt's KV cache from a prefill replica to a
// decode replica over a KvTransport. It is run_simulation() generalised: one agenda ordered by
// (time, kind, sequence) with step-end < arrival < step-start, each replica planning its next step
// once every event at that instant has been seen. With one colocated replica it performs exactly
// the calls run_simulation() performs, in the same order, so their outputs are identical; with
// round-robin each replica sees exactly what a lone run on its share of the trace would see.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sim/cluster/kv_transport.hpp"
#include "sim/cluster/router.hpp"
#include "sim/engine.hpp"
#include "sim/workload.hpp"

namespace sparksim {

enum class ReplicaRole : std::uint8_t {
  kColocated,  // prefills and decodes its own requests
  kPrefill,    // prefills prompts, then hands their KV to a decode replica
  kDecode,     // decodes requests whose KV arrived from a prefill replica
};

const char* replica_role_name(ReplicaRole role);

struct ClusterReplica {
  Engine* engine = nullptr;
  ReplicaRole role = ReplicaRole::kColocated;
};

struct ReplicaStats {
  std::int64_t requests_submitted = 0;    // dispatched to it (decode: KV hand-offs received)
  std::int64_t requests_rejected_kv = 0;  // of those, never fit in its KV
  SimTime end_time = 0;  // its last event or streamed chunk: its share's `sim_duration_s`
};

struct ClusterStats {
  std::int64_t requests_submitted = 0;  // arrivals at the router
  std::int64_t requests_rejected_kv = 0;
  std::int64_t kv_transfers = 0;
  std::int64_t events = 0;
  SimTime end_time = 0;  // time of the last event, or of the last chunk streamed if later
  std::vector<ReplicaStats> replicas;
};

struct ClusterWiring {
  // Either all colocated, or at least one prefill and one decode replica (none colocated).
  std::span<const ClusterReplica> replicas;
  Router* arrival_router = nullptr;  // over the colocated replicas, or over the prefill pool
  Router* decode_router = nullptr;   // disaggregated: over the decode pool, when a prefill ends
  KvTransport* transport = nullptr;  // disaggregated: carries the KV hand-offs
  double kv_bytes_per_token = 0;     // a hand-off moves prompt_tokens × this (rounded) bytes
};

// A request done for good (on its colocated or decode replica; on its prefill replica when its
// only output token is the first), as the cluster saw it: a disaggregated request keeps its
// prefill-side admission time and counts the prefill side's computed tokens and preemptions.
using ClusterCompletion = std::function<void(const Request&, std::size_t replica, SimTime now)>;

// Runs until no event is left and no transfer is in flight. Request ids are 0, 1, 2, ... in
// arrival order at the router (ties: workload order), whatever replica serves them, so a request's
// random draws do not depend on the routing. Takes over the engines' completion handlers. Throws
// std::invalid_argument on an inconsistent wiring. With a transport that waits on SimGrid, call it
// from the router actor (ClusterPlatform::run_router).
// threads > 1: a colocated cluster under an open-loop workload runs its replicas on that many
// threads between arrivals (sim/cluster/windowed_cluster_loop.hpp), with the same outputs; any
// other cluster runs on the calling thread. The observer is then called from any of those
// threads, one call at a time and in the one-thread order, but up to a window late; an engine's
// own observers (step, delivery) are called from the thread running its replica, in that
// replica's order. When a run throws, it throws the first error in simulated time.
// `stop` (may be null): read before every event; once true, the run ends there and returns what it
// has counted so far (a plan's child sets it from the observer once the count's SLO is lost). An
// observer must not throw to end a run: unwinding a SimGrid actor's stack is what AddressSanitizer
// cannot follow (google/sanitizers#189). A run given `stop` runs on the calling thread.
ClusterStats run_cluster_simulation(const ClusterWiring& wiring, Workload& workload,
                                    const ClusterCompletion& observer = {}, std::size_t threads = 1,
                                    const bool* stop = nullptr);

}  // namespace sparksim
