// FleetSimulator: how capacity planning runs one workload on N identical replicas. The one
// implementation today is round-robin over independent replicas (request i goes to replica
// i mod N, each replica simulated alone on its share, with the run's seed): with no routing
// state and no network cost that is exactly what a round-robin cluster does. The cluster layer
// (sim/cluster/, `sparksim cluster`) can implement this interface to bring smarter routers and
// disaggregated layouts to `sparksim plan` without changing the search.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "experiments/request_samples.hpp"
#include "experiments/run_experiment.hpp"

namespace sparksim {

struct FleetOutcome {
  std::int64_t replicas = 0;
  std::int64_t gpus = 0;  // replicas × the GPUs of one replica
  std::int64_t requests_total = 0;
  std::int64_t requests_completed = 0;
  std::int64_t requests_rejected_kv = 0;  // could not fit one replica's KV cache at all
  std::int64_t output_tokens = 0;
  double duration_s = 0;  // first arrival → the last completion on any replica
  double throughput_tok_s = 0;
  double throughput_tok_s_per_gpu = 0;
  RequestSamples samples;  // every completed request of every replica, pooled
};

class FleetSimulator {
 public:
  virtual ~FleetSimulator() = default;
  // The router's name as `--router` spells it.
  virtual std::string router() const = 0;
  // Serves `setup`'s open-loop trace on `replicas` replicas (1 <= replicas <= requests) using up
  // to `jobs` threads. Deterministic: a pure function of (setup, replicas).
  virtual FleetOutcome simulate(const RunSetup& setup, std::int64_t replicas, int jobs) const = 0;
};

// The routers `--router` accepts; today "round-robin". Throws InputError("--router: unknown
// router 'x'; valid: round-robin") for another name.
std::unique_ptr<FleetSimulator> make_fleet_simulator(const std::string& router);

}  // namespace sparksim
