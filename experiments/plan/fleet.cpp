// Fleets for capacity planning: round-robin over independent single-replica runs (colocated), or
// one cluster simulation per candidate count (any router, colocated or disaggregated).
#include "experiments/plan/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/input_error.hpp"
#include "common/named_spec.hpp"
#include "experiments/plan/cluster_child_answer.hpp"
#include "experiments/run/cluster_experiment.hpp"
#include "experiments/run/parallel_runner.hpp"
#include "sim/cluster/router.hpp"
#include "sim/cluster/subprocess.hpp"

namespace sparksim {

namespace {

void finish(FleetOutcome& f) {
  if (f.duration_s > 0) {
    f.throughput_tok_s = static_cast<double>(f.output_tokens) / f.duration_s;
    f.throughput_tok_s_per_gpu = f.throughput_tok_s / static_cast<double>(f.gpus);
  }
}

class RoundRobinFleet final : public FleetSimulator {
 public:
  std::string router() const override { return "round-robin"; }
  std::string layout() const override { return "colocated"; }
  void check(const RunSetup&) const override {}

  FleetOutcome simulate(const RunSetup& setup, std::int64_t replicas, int jobs) const override {
    const auto& all = setup.trace.requests;
    const auto n = static_cast<std::size_t>(replicas);
    std::vector<FleetOutcome> parts(n);
    // Each replica copies the setup without the trace and takes its own share: copying the whole
    // trace per replica cost a round-robin plan over 100,000 requests about a tenth of its time.
    RunSetup shell = setup;
    shell.trace.requests = {};
    run_in_parallel(n, jobs, [&](std::size_t k) {
      RunSetup mine = shell;
      mine.trace.requests.reserve(all.size() / n + 1);
      for (std::size_t i = k; i < all.size(); i += n) mine.trace.requests.push_back(all[i]);
      FleetOutcome& p = parts[k];
      const RunOutcome out =
          execute_run(mine, nullptr, nullptr, nullptr,
                      [&p](const Request& r, SimTime) { p.samples.add(request_sample(r)); });
      const auto& s = out.summary;
      p.requests_total = s.at("requests_total").get<std::int64_t>();
      p.requests_completed = s.at("requests_completed").get<std::int64_t>();
      p.requests_rejected_kv = s.at("requests_rejected_kv").get<std::int64_t>();
      p.output_tokens = s.at("output_tokens").get<std::int64_t>();
      p.duration_s = s.at("sim_duration_s").get<double>();
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
    finish(f);
    return f;
  }
};

// `sparksim cluster` on the built-in topology, one forked child per candidate count (SimGrid
// allows one simulation per process). `jobs` is unused by simulate(): fork keeps only the calling
// thread, so a caller that wants several counts at once forks them itself (child_run).
class ClusterFleet final : public FleetSimulator {
 public:
  ClusterFleet(std::string router, double prefill_share)
      : router_(std::move(router)), prefill_share_(prefill_share) {}

  std::string router() const override { return router_; }
  std::string layout() const override {
    if (prefill_share_ == 0) return "colocated";
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "prefill-share=%g", prefill_share_);
    return buffer;
  }

  void check(const RunSetup& setup) const override {
    ClusterOptions options;
    options.replicas = 2;
    options.router = router_;
    options.prefill_replicas = prefill_share_ > 0 ? 1 : 0;
    prepare_cluster(setup, options);
  }

  FleetOutcome simulate(const RunSetup& setup, std::int64_t replicas, int) const override {
    ChildRun run = child_run(setup, replicas, {});
    if (run.body) finish_child_run(run.outcome, run_in_subprocess(run.body));
    return run.outcome;
  }

  bool forks() const override { return true; }
  ChildRun child_run(const RunSetup& setup, std::int64_t replicas,
                     std::span<const SloTerm> stop_terms) const override {
    ChildRun run;
    FleetOutcome& f = run.outcome;
    f.replicas = replicas;
    f.gpus = replicas * setup.gpus;
    f.requests_total = static_cast<std::int64_t>(setup.trace.requests.size());
    ClusterOptions options;
    options.replicas = replicas;
    options.router = router_;
    if (prefill_share_ > 0) {
      f.prefill_replicas = prefill_replicas_for(prefill_share_, replicas);
      if (f.prefill_replicas == 0) {
        f.infeasible = "a disaggregated layout needs at least 2 replicas";
        return run;
      }
      options.prefill_replicas = f.prefill_replicas;
    }
    run.body = [cluster = prepare_cluster(setup, options),
                terms = std::vector<SloTerm>(stop_terms.begin(), stop_terms.end())] {
      return encode_child_answer(run_cluster_child(cluster, terms));
    };
    return run;
  }

  void finish_child_run(FleetOutcome& f, const std::string& bytes) const override {
    ClusterChildAnswer a = decode_child_answer(bytes);
    f.requests_total = a.run.requests_total;
    f.requests_completed = a.run.requests_completed;
    f.stopped_at = a.stopped_at;
    f.stop_reason = std::move(a.stop_reason);
    if (f.stopped_at) return;
    f.requests_rejected_kv = a.run.requests_rejected_kv;
    f.output_tokens = a.run.output_tokens;
    f.duration_s = a.run.duration_s;
    f.samples = std::move(a.run.samples);
    finish(f);
  }

 private:
  std::string router_;
  double prefill_share_;
};

// Validates the router name (its table lists the valid ones) and the share.
void check_fleet(const std::string& router, double prefill_share) {
  make_router(NamedSpec::parse(router, "--router"));
  if (!(prefill_share >= 0 && prefill_share < 1)) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%g", prefill_share);
    throw InputError(std::string("--prefill-share ") + buffer +
                     ": must be in [0, 1) (0 = colocated; 0.25 = a quarter of the replicas "
                     "prefill)");
  }
}

}  // namespace

std::int64_t prefill_replicas_for(double prefill_share, std::int64_t replicas) {
  if (!(prefill_share > 0) || replicas < 2) return 0;
  const auto p =
      static_cast<std::int64_t>(std::llround(prefill_share * static_cast<double>(replicas)));
  return std::clamp<std::int64_t>(p, 1, replicas - 1);
}

std::unique_ptr<FleetSimulator> make_fleet_simulator(const std::string& router,
                                                     double prefill_share) {
  check_fleet(router, prefill_share);
  if (router == "round-robin" && prefill_share == 0) return std::make_unique<RoundRobinFleet>();
  return std::make_unique<ClusterFleet>(router, prefill_share);
}

std::unique_ptr<FleetSimulator> make_cluster_fleet_simulator(const std::string& router,
                                                             double prefill_share) {
  check_fleet(router, prefill_share);
  return std::make_unique<ClusterFleet>(router, prefill_share);
}

}  // namespace sparksim
