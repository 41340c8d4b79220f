// The cluster loop on several threads, for the clusters where that cannot change an output:
// colocated replicas (no KV hand-off between them) fed by an open-loop workload (no completion
// makes a request). Between two arrivals at the router the replicas do not interact, so each
// window up to the next arrival is run by replica groups side by side (replica r in group
// r mod groups, each with its own agenda, on its own thread); at the window's end the main thread
// routes the arrival with every load as the one-thread loop would see it, and hands the window's
// completions to the observer in the one-thread loop's order (InstantOrder). Every output equals
// run_cluster_simulation's on one thread, byte for byte (tests/cluster/windowed_cluster_test.cpp).
#pragma once

#include <cstddef>

#include "sim/cluster/cluster_simulation.hpp"

namespace sparksim {

// Whether run_windowed_cluster may run this cluster (colocated, open loop, at least 2 replicas).
bool windowed_cluster_applies(const ClusterWiring& wiring, const Workload& workload);

// run_cluster_simulation's result on min(groups, replicas) threads (the calling one included).
// Precondition: windowed_cluster_applies.
ClusterStats run_windowed_cluster(const ClusterWiring& wiring, Workload& workload,
                                  const ClusterCompletion& observer, std::size_t groups,
                                  std::size_t threads);

}  // namespace sparksim
