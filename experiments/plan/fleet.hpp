// FleetSimulator: how capacity planning runs one workload on N identical replicas behind a router,
// colocated or with a prefill pool. Two implementations, both cluster semantics:
// - round-robin, colocated: request i to replica i mod N, each replica simulated alone on its
//   share (in parallel threads). With no routing state and no network cost this is exactly what a
//   round-robin cluster does (tests/cluster/ checks the two agree), and it is the fastest.
// - any other router of the cluster layer's table, or a disaggregated layout: one `sparksim
//   cluster` simulation (sim/cluster/, SimGrid) per candidate count, each in a forked child.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/plan/slo_term.hpp"
#include "experiments/run/request_samples.hpp"
#include "experiments/run/run_experiment.hpp"

namespace sparksim {

struct FleetOutcome {
  std::int64_t replicas = 0;
  std::int64_t prefill_replicas = 0;  // of `replicas`; 0 = colocated
  std::int64_t gpus = 0;              // replicas × the GPUs of one replica
  std::int64_t requests_total = 0;
  std::int64_t requests_completed = 0;
  std::int64_t requests_rejected_kv = 0;  // could not fit one replica's KV cache at all
  std::int64_t output_tokens = 0;
  double duration_s = 0;  // first arrival → the last completion on any replica
  double throughput_tok_s = 0;
  double throughput_tok_s_per_gpu = 0;
  RequestSamples samples;  // every completed request of every replica, pooled
  // Non-empty when the layout cannot be built with this many replicas (a disaggregated fleet of
  // one replica); nothing was simulated and the count cannot meet any SLO.
  std::string infeasible;
  // Set when the run stopped once its SLO could no longer be met (SloMissWatch): the completion
  // time that made the miss certain, every request done by then counted in requests_completed,
  // and why. The other counts, the throughput and the samples are then not measured.
  std::optional<SimTime> stopped_at;
  std::string stop_reason;
};

class FleetSimulator {
 public:
  virtual ~FleetSimulator() = default;
  // The router's name as `--router` spells it.
  virtual std::string router() const = 0;
  // "colocated" or "prefill-share=S" (S as given).
  virtual std::string layout() const = 0;
  // Serves `setup`'s open-loop trace on `replicas` replicas (1 <= replicas <= requests) using up
  // to `jobs` threads (the cluster implementation runs one child process at a time).
  // Deterministic: a pure function of (setup, replicas). Throws InputError when the setup does not
  // fit the layout (a disaggregated fleet needs the profile's KV bytes per token).
  virtual FleetOutcome simulate(const RunSetup& setup, std::int64_t replicas, int jobs) const = 0;
  // Throws InputError if `setup` cannot run on this fleet at all (simulate() would throw), so a
  // caller can report it before simulating anything.
  virtual void check(const RunSetup& setup) const = 0;

  // A fleet simulated in a forked child (the cluster layer; forks() is true) also lets its caller
  // fork: a plan then runs several counts at once (SubprocessPool). child_run gives the child's
  // work for a count and the outcome so far; finish_child_run completes that outcome from the
  // child's result. A count that needs no simulation comes back with an empty body and its final
  // outcome. simulate() is exactly these two around run_in_subprocess, with no stop terms.
  // `stop_terms` non-empty: the child stops once those terms can no longer all be met
  // (FleetOutcome::stopped_at), after every completion at that instant.
  struct ChildRun {
    std::function<std::string()> body;
    FleetOutcome outcome;
  };
  virtual bool forks() const { return false; }
  virtual ChildRun child_run(const RunSetup& /*setup*/, std::int64_t /*replicas*/,
                             std::span<const SloTerm> /*stop_terms*/ = {}) const {
    throw std::logic_error("child_run on a fleet that does not fork");
  }
  virtual void finish_child_run(FleetOutcome& /*outcome*/, const std::string& /*text*/) const {}
};

// The replicas of N that prefill at `prefill_share` S in (0, 1): round(S × N), at least 1 and
// leaving at least 1 to decode; 0 when S is 0 or N < 2 (no disaggregated layout exists).
std::int64_t prefill_replicas_for(double prefill_share, std::int64_t replicas);

// `router`: a name of the cluster layer's router table (sim/cluster/router.hpp); an unknown one
// throws InputError("--router: unknown router 'x'; valid: round-robin, least-loaded, kv-aware").
// `prefill_share`: 0 = colocated; in (0, 1) = that share of the replicas prefill and hand their
// KV to the others over the built-in topology's network; else InputError.
std::unique_ptr<FleetSimulator> make_fleet_simulator(const std::string& router,
                                                     double prefill_share = 0);

// Always the cluster simulation, even for round-robin colocated (for tests comparing the two).
std::unique_ptr<FleetSimulator> make_cluster_fleet_simulator(const std::string& router,
                                                             double prefill_share = 0);

}  // namespace sparksim
