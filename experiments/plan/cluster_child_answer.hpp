// What a plan's cluster child runs and sends back (experiments/plan/fleet.cpp forks it): the
// cluster's counts and every completed request's SLO samples, or, when the count's SLO was lost
// for good before the end, where and why it stopped; as bytes, since the child and its parent are
// the same binary. Before, a child sent its summary and whole requests.csv inside JSON: a search
// over 20 s of traffic at 10,000 requests/s took 42 s that way, 23 s this way (every count run to
// the end both times).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "experiments/plan/slo_term.hpp"
#include "experiments/run/cluster_experiment.hpp"

namespace sparksim {

struct ClusterChildAnswer {
  ClusterSampleRun run;  // stopped: only requests_total and requests_completed are set
  std::optional<SimTime> stopped_at;
  std::string stop_reason;
};

// The cluster run; with stop terms, it stops after every completion at the instant those terms
// can no longer all be met (SloMissWatch). A run that reaches its end first is whole.
ClusterChildAnswer run_cluster_child(const ClusterSetup& cluster,
                                     const std::vector<SloTerm>& stop_terms);

std::string encode_child_answer(const ClusterChildAnswer& answer);
// Throws std::runtime_error on a short answer.
ClusterChildAnswer decode_child_answer(const std::string& bytes);

}  // namespace sparksim
