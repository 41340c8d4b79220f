// The cluster loop on several threads, where that cannot change an output: colocated replicas
// (no KV hand-off between them) under an open-loop workload (no completion makes a request).
// Between two arrivals at the router such replicas do not interact, so replica groups run each
// window up to the next arrival side by side; every output equals the one-thread loop's.
#pragma once

#include <cstddef>

#include "sim/cluster/cluster_simulation.hpp"

namespace sparksim {

// Whether run_windowed_cluster may run this cluster (colocated, open loop, at least 2 replicas).
bool windowed_cluster_applies(const ClusterWiring& wiring, const Workload& workload);

// run_cluster_simulation's result with the replicas in min(groups, replicas) groups (replica r in
// group r mod groups, each with its own agenda) on up to `threads` threads, the calling one
// included. At each window's end the main thread routes the arrival with every load as the
// one-thread loop would see it; during the next window the completions go to the observer in the
// one-thread loop's order (InstantOrder). Byte for byte: tests/cluster/windowed_cluster_test.cpp,
// windowed_cluster_features_test.cpp, fleet_identity_test.cpp. Precondition:
// windowed_cluster_applies.
ClusterStats run_windowed_cluster(const ClusterWiring& wiring, Workload& workload,
                                  const ClusterCompletion& observer, std::size_t groups,
                                  std::size_t threads);

}  // namespace sparksim
