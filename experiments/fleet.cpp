// Round-robin over independent single-replica runs.
#include "experiments/fleet.hpp"

#include <algorithm>
#include <sstream>

#include "common/input_error.hpp"
#include "experiments/parallel_runner.hpp"

namespace sparksim {

namespace {

class RoundRobinFleet final : public FleetSimulator {
 public:
  std::string router() const override { return "round-robin"; }

  FleetOutcome simulate(const RunSetup& setup, std::int64_t replicas, int jobs) const override {
    const auto& all = setup.trace.requests;
    const auto n = static_cast<std::size_t>(replicas);
    std::vector<FleetOutcome> parts(n);
    run_in_parallel(n, jobs, [&](std::size_t k) {
      RunSetup mine = setup;
      mine.trace.requests.clear();
      for (std::size_t i = k; i < all.size(); i += n) mine.trace.requests.push_back(all[i]);
      std::ostringstream requests;
      const RunOutcome out = execute_run(mine, &requests);
      FleetOutcome& p = parts[k];
      const auto& s = out.summary;
      p.requests_total = s.at("requests_total").get<std::int64_t>();
      p.requests_completed = s.at("requests_completed").get<std::int64_t>();
      p.requests_rejected_kv = s.at("requests_rejected_kv").get<std::int64_t>();
      p.output_tokens = s.at("output_tokens").get<std::int64_t>();
      p.duration_s = s.at("sim_duration_s").get<double>();
      p.samples.add_requests_csv(requests.str());
    });
    FleetOutcome f;
    f.replicas = replicas;
    f.gpus = replicas * setup.gpus;
    for (const auto& p : parts) {  // replica order: the pooled samples do not depend on threads
      f.requests_total += p.requests_total;
      f.requests_completed += p.requests_completed;
      f.requests_rejected_kv += p.requests_rejected_kv;
      f.output_tokens += p.output_tokens;
      f.duration_s = std::max(f.duration_s, p.duration_s);
      f.samples.append(p.samples);
    }
    if (f.duration_s > 0) {
      f.throughput_tok_s = static_cast<double>(f.output_tokens) / f.duration_s;
      f.throughput_tok_s_per_gpu = f.throughput_tok_s / static_cast<double>(f.gpus);
    }
    return f;
  }
};

}  // namespace

std::unique_ptr<FleetSimulator> make_fleet_simulator(const std::string& router) {
  if (router == "round-robin") return std::make_unique<RoundRobinFleet>();
  throw InputError("--router: unknown router '" + router +
                   "'; valid: round-robin (smarter routers arrive with the cluster layer)");
}

}  // namespace sparksim
