// Capacity planning: the fewest replicas (and GPUs) that serve a trace within a latency/speed SLO,
// per verification policy, and per fleet (router × colocated or disaggregated layout) when several
// are compared. Each candidate replica count is simulated (FleetSimulator: independent runs or the
// cluster layer) and judged on the pooled per-request samples; a doubling search then bisection
// finds the minimum.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "experiments/plan/fleet.hpp"
#include "experiments/plan/slo_term.hpp"
#include "experiments/plan/topology_plan.hpp"
#include "experiments/run/run_experiment.hpp"
#include "experiments/sensitivity/sensitivity_inputs.hpp"

namespace sparksim {

// The smallest n in [1, max_n] with meets(n), assuming meets is monotone (more replicas never
// hurt): tries 1, 2, 4, ... then bisects between the last failing and first passing count, so it
// calls meets O(log max_n) times and only returns n where meets(n) held and meets(n-1) failed (or
// n == 1). nullopt when meets(max_n) fails.
std::optional<std::int64_t> search_min_replicas(std::int64_t max_n,
                                                const std::function<bool(std::int64_t)>& meets);

// That search one count at a time, for a caller that runs several searches at once: next() is
// the count to try (nullopt once the search is over), record() its verdict, answer() the result.
// search_min_replicas is a loop over it, so both try the same counts in the same order.
class ReplicaSearch {
 public:
  explicit ReplicaSearch(std::int64_t max_n);
  std::optional<std::int64_t> next() const { return next_; }
  void record(bool meets);
  std::optional<std::int64_t> answer() const { return answer_; }

 private:
  std::int64_t max_n_;
  std::int64_t failing_ = 0;  // largest count known to fail (0: none tried)
  std::int64_t passing_ = 0;  // smallest count known to pass (0: none yet, still doubling)
  std::optional<std::int64_t> next_, answer_;
};

struct PlanEvaluation {
  FleetOutcome fleet;          // samples dropped after judging (memory)
  std::vector<double> values;  // one per SLO term
  bool meets = false;
  std::string reason;  // why it fails ("ttft_p99_ms 3456.7 > 2000"), empty when it meets
};

struct PolicyPlan {
  std::string drafter;
  std::string policy;
  std::string router;  // the fleet: router and layout (FleetSimulator's names)
  std::string layout;
  std::string topology;                  // "dep8"; "" when one profile is planned
  std::optional<std::int64_t> replicas;  // nullopt: unmet within max_replicas
  std::int64_t gpus_per_replica = 1;
  std::int64_t engines_per_replica = 1;     // simulated engines per replica (dep<N>: N ranks)
  std::int64_t max_replicas = 0;            // searched up to (0: never simulated)
  std::string infeasible_memory;            // the topology does not fit: nothing simulated
  std::string profile_source;               // its profile's provenance (topologies may differ)
  std::vector<PlanEvaluation> evaluations;  // in the order run
  const PlanEvaluation* at(std::int64_t replicas) const;
};

struct PlanOptions {
  RunOptions run;  // workload, profile, engine, acceptance, seed (drafter/policy set per entry)
  std::vector<std::string> policies;  // "drafter+policy" or "policy" (with `default_drafter`)
  std::string default_drafter = "dspark-7";
  std::string slo;
  std::vector<std::string> routers = {"round-robin"};  // each compared with each layout
  std::vector<double> prefill_shares = {0};  // layouts: 0 = colocated, S in (0, 1) = disaggregated
  std::int64_t max_replicas = 64;
  // Topologies to compare (DeepSeek-V4): replaces --profile; each policy and fleet then gets the
  // topology with the fewest GPUs (topology.csv says why each other one lost).
  TopologyPlanOptions topology;
  int jobs = 0;
  // A count simulated by the cluster layer stops once its SLO can no longer be met
  // (slo_miss_watch.hpp); true runs every count to the end, so that search.csv has every miss's
  // measured values. Either way the same counts are tried and the answers are the same.
  bool finish_misses = false;
  std::string out_dir;
  // Declared input uncertainty (plan_uncertainty.hpp): each input uniform over [low, high] (a
  // categorical one: either choice), sampled by a seeded Latin hypercube; empty = none.
  std::vector<SensitivityInput> uncertain;
  std::int64_t uncertainty_samples = 16;
  std::uint64_t uncertainty_seed = 1;
};

// One sample of the declared inputs and what the plan needs under it.
struct UncertaintySample {
  std::vector<double> values;  // per input: its value (categorical: kAtLow or kAtHigh)
  std::vector<std::optional<std::int64_t>>
      replicas;  // per plan (PlanResult::plans); nullopt: unmet
};

struct PlanResult {
  std::vector<SloTerm> terms;
  // One profile: its label and source; topologies: "dep8: LABEL; dep16: LABEL" and the sources
  // joined with '+' when they differ ("telemetry+analytic"), each plan row naming its own.
  std::string profile_label;
  std::string profile_source;
  std::string target;  // the planned profiles' target (each topology's is the same)
  std::vector<std::string> routers;
  std::vector<std::string> layouts;
  std::int64_t max_replicas = 0;  // after capping at the trace's request count
  std::vector<PolicyPlan> plans;  // policy-major, then router, then layout (then topology)
  std::vector<TopologyCandidate> topologies;  // empty: one profile was planned
  // Topology mode: per policy and fleet, one verdict per topology (same order as `topologies`),
  // aligned with `plans` in groups of topologies.size().
  std::vector<std::vector<TopologyVerdict>> verdicts;
  std::vector<UncertaintySample> uncertainty;  // one per sample; empty without uncertain inputs
};

// Validates everything first (SLO, every policy entry prepared as `sparksim run` would, the
// routers and layouts, an open-loop workload, the topologies), then searches each policy and fleet
// (and topology) and writes DIR/plan.csv, DIR/search.csv and DIR/config.json; with topologies
// also DIR/topology.csv and every composed topology's profile as DIR/profiles/<topology>.json.
// With uncertain inputs, also searches every sample (plan_uncertainty.hpp) and writes
// DIR/uncertainty.csv and DIR/meet_probability.csv.
PlanResult run_plan(const PlanOptions& options);

// The checks alone (every problem run_plan would stop on before simulating), as one InputError.
void check_plan(const PlanOptions& options);

// The search alone, for one setting of the inputs: validates as run_plan does, writes nothing and
// ignores `options.uncertain`.
PlanResult search_plan(const PlanOptions& options);

// The one-line answer for a policy (and fleet, "[kv-aware, colocated]", when several), e.g.
// "dspark-7 + async-topk: 3 replicas (3 GPUs) meet ttft_p99_ms<=2000 (1234.5), ...; 2 replicas
// miss: ttft_p99_ms 3456.7 > 2000".
std::string plan_answer(const PlanResult& result, const PolicyPlan& plan);

// The columns that name a plan in plan.csv, search.csv and topology.csv, and a row's cells for
// them: drafter, policy, router, layout, topology.
inline constexpr const char* kPlanNameColumns = "drafter,policy,router,layout,topology";
class CsvRow;
CsvRow& plan_name_cells(CsvRow& row, const PolicyPlan& plan);

// Topology mode: DIR/topology.csv, one row per policy × fleet × topology (status, replicas, GPUs,
// engines, prefill engines, profile, why it lost).
std::string topology_csv(const PlanResult& result);

// Topology mode: the choice for plans[first .. first + topologies) (one policy and fleet), e.g.
// "  -> dep8: fewest GPUs: 3 x dep8 = 24 GPUs; dep16: 2 x dep16 = 32 GPUs > 24 (dep8); ...".
std::string topology_answer(const PlanResult& result, std::size_t group);

}  // namespace sparksim
