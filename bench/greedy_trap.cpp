// Greedy's early-stop trap, measured (issue 18 item 3; docs/sps-beliefs.md). Runs closed-loop
// traffic driven by `greedy` (Algorithm 1) and, at every step, asks the global search over the
// same step's survivals and SPS table (what async-topk's capacity search computes when its
// lagged survivals equal the current ones) for its admission count. A step is trapped when the
// global search finds a Θ = τ·SPS(B) more than 1e-9 above greedy's. Printed per load: how often,
// how much Θ it costs (mean over trapped steps), and where: the share of traps whose stopping
// point sits at a CUDA-graph bucket edge (one more token pads to the next bucket), and the share
// past the largest bucket (eager execution, no padding). Prints figures,
// asserts nothing.
// Usage: sparksim_greedy_trap PROFILE SPS_BELIEF SECONDS USERS...
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "experiments/run/run_experiment.hpp"
#include "policies/admission_search.hpp"
#include "policies/candidate_merge.hpp"
#include "policies/greedy_policy.hpp"
#include "profiles/live_sps.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/engine.hpp"
#include "sim/simulation.hpp"
#include "sim/workload.hpp"

using namespace sparksim;

namespace {

struct TrapCounts {
  std::int64_t steps = 0;
  std::int64_t trapped = 0;
  std::int64_t trapped_at_edge = 0;  // stopped where one more token pads to the next bucket
  std::int64_t trapped_eager = 0;    // stopped past the largest bucket (no padding there)
  double theta_loss_sum = 0;         // Σ over trapped steps of 1 - Θ_greedy / Θ_global
  std::int64_t greedy_drafts = 0;
  std::int64_t global_drafts = 0;
};

class TrapProbe final : public VerificationPolicy {
 public:
  TrapProbe(const std::vector<std::int64_t>& buckets, TrapCounts& counts)
      : greedy_(true), buckets_(buckets), counts_(counts) {}
  bool synchronous() const override { return true; }

  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override {
    greedy_.schedule(view, sps, lengths);
    const auto r = static_cast<std::size_t>(view.requests);
    const auto gamma = static_cast<std::size_t>(view.gamma);
    survivals_.resize(r * gamma + 4);
    std::vector<float> all;
    double greedy_tau = static_cast<double>(r);
    std::int64_t greedy_count = 0;
    for (std::size_t i = 0; i < r; ++i) {
      const int positive =
          compute_survivals(&view.confidences[i * gamma], view.gamma, &survivals_[i * gamma]);
      for (int k = 0; k < positive; ++k) all.push_back(survivals_[i * gamma + k]);
      for (int k = 0; k < lengths[i]; ++k) greedy_tau += survivals_[i * gamma + k];
      greedy_count += lengths[i];
    }
    std::sort(all.begin(), all.end(), std::greater<>());
    const std::int64_t global_count = global_search(all, view.requests, sps);
    const double global_tau =
        static_cast<double>(r) + std::accumulate(all.begin(), all.begin() + global_count, 0.0);
    const std::int64_t b_greedy = view.requests + greedy_count;
    const double theta_greedy = greedy_tau * sps.steps_per_s(b_greedy);
    const double theta_global = global_tau * sps.steps_per_s(view.requests + global_count);
    ++counts_.steps;
    counts_.greedy_drafts += greedy_count;
    counts_.global_drafts += global_count;
    if (theta_global > theta_greedy * (1 + 1e-9)) {
      ++counts_.trapped;
      counts_.theta_loss_sum += 1 - theta_greedy / theta_global;
      if (buckets_.empty() || b_greedy > buckets_.back()) {
        ++counts_.trapped_eager;
      } else if (pad(b_greedy + 1) > pad(b_greedy)) {
        ++counts_.trapped_at_edge;
      }
    }
  }

 private:
  std::int64_t pad(std::int64_t b) const {
    for (const std::int64_t bucket : buckets_) {
      if (bucket >= b) return bucket;
    }
    return b;  // eager past the last bucket: every token its own size
  }
  GreedyPolicy greedy_;
  std::vector<std::int64_t> buckets_;
  TrapCounts& counts_;
  std::vector<float> survivals_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s PROFILE SPS_BELIEF SECONDS USERS...\n", argv[0]);
    return 2;
  }
  std::printf("%-8s %-9s %8s %9s %9s %9s %11s %13s %13s\n", "users", "sps", "steps", "trapped",
              "at_edge", "eager", "theta_loss", "greedy_drafts", "global_drafts");
  for (int a = 4; a < argc; ++a) {
    RunOptions o;
    o.profile_path = argv[1];
    o.sps = argv[2];
    o.drafter = "dspark-7";
    o.policy = "greedy";
    o.closed_loop_users = std::atoll(argv[a]);
    o.synthetic =
        "prompt=lognormal:1000:0.5,output=lognormal:300:0.5,domain=math:1/code:1/"
        "chat:1,duration_s=" +
        std::string(argv[3]);
    o.seed = 1;
    const RunSetup setup = prepare_run(o);
    const TimeModel model(setup.profile);
    const SpsTable sps = make_sps_table(
        setup.profile, setup.sps_belief,
        std::max<std::int64_t>(setup.engine.max_batch_tokens,
                               setup.engine.max_running * (setup.engine.drafter.gamma + 1)));
    TrapCounts counts;
    TrapProbe probe(setup.profile.verify.graph_buckets, counts);
    auto acceptance = make_acceptance_model(
        setup.acceptance_spec, AcceptanceContext{setup.engine.drafter, setup.profile.target, 1});
    MetricsCollector metrics(nullptr);
    Engine engine(setup.engine, model, sps, *acceptance, probe, metrics);
    LiveSps live(model);
    if (setup.sps_belief == SpsBelief::kLive) engine.use_live_sps(&live);
    ClosedLoopWorkload workload(*setup.synthetic, *setup.closed_loop, 1);
    run_simulation(engine, workload);
    const double steps = static_cast<double>(std::max<std::int64_t>(counts.steps, 1));
    const double trapped = static_cast<double>(std::max<std::int64_t>(counts.trapped, 1));
    std::printf("%-8s %-9s %8lld %8.1f%% %8.1f%% %8.1f%% %10.2f%% %13.2f %13.2f\n", argv[a],
                argv[2], static_cast<long long>(counts.steps), 100.0 * counts.trapped / steps,
                100.0 * counts.trapped_at_edge / trapped, 100.0 * counts.trapped_eager / trapped,
                100.0 * counts.theta_loss_sum / trapped, counts.greedy_drafts / steps,
                counts.global_drafts / steps);
  }
  return 0;
}
