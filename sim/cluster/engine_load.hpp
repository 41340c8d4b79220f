// What a router sees of one replica's engine (ReplicaLoad): the one formula both cluster loops
// (cluster_simulation.cpp, windowed_cluster_loop.cpp) take loads with.
#pragma once

#include "sim/cluster/router.hpp"
#include "sim/engine.hpp"

namespace sparksim {

// The engine's own load; the one-thread loop adds the KV hand-offs on their way to it.
inline ReplicaLoad engine_load(const Engine& e) {
  return ReplicaLoad{e.outstanding_tokens(), e.kv_reserved() + e.kv_queued_demand(),
                     e.kv_capacity(), e.running_count(), e.waiting_count()};
}

}  // namespace sparksim
