// Topology candidates for `sparksim plan` (composed from the MoE step model or given per
// topology) and the choice of the fewest GPUs among them.
#include "experiments/plan/topology_plan.hpp"

#include <charconv>
#include <set>

#include "common/input_error.hpp"
#include "experiments/run/problem_list.hpp"
#include "profiles/moe/moe_step_model.hpp"
#include "profiles/moe/replica_topology.hpp"
#include "profiles/profile_io.hpp"

namespace sparksim {

namespace {

// `dep<N>` / `tp<N>` by form only (a given profile of a dense test target has no expert rules).
ReplicaTopology parse_topology_form(const std::string& name, const std::string& what) {
  ReplicaTopology t;
  const bool dep = name.rfind("dep", 0) == 0;
  const bool tp = !dep && name.rfind("tp", 0) == 0;
  const std::string digits = name.substr(dep ? 3 : tp ? 2 : 0);
  int n = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if ((!dep && !tp) || digits.empty() || ec != std::errc() ||
      ptr != digits.data() + digits.size() || n < 1 || n > 1024 || digits[0] == '0') {
    throw InputError(what + ": '" + name +
                     "' is not a topology; use dep<N> (attention data-parallel) or tp<N> "
                     "(attention tensor-parallel), N in 1..1024");
  }
  t.name = name;
  t.attention = dep ? AttentionParallel::kData : AttentionParallel::kTensor;
  t.gpus = n;
  t.expert_parallel = n;
  return t;
}

TopologyCandidate candidate_of(const ReplicaTopology& t) {
  TopologyCandidate c;
  c.name = t.name;
  c.gpus_per_replica = t.gpus;
  c.engines_per_replica = t.attention_ranks();
  return c;
}

// Names seen so far across --topologies and --topology-profile; a repeat is a problem.
class UniqueNames {
 public:
  explicit UniqueNames(ProblemList& problems) : problems_(problems) {}
  void add(const std::string& name, const std::string& what) {
    if (!seen_.insert(name).second) problems_.add(what + ": " + name + " is given twice");
  }

 private:
  ProblemList& problems_;
  std::set<std::string> seen_;
};

// The composed topology's profile, or why it does not fit in memory (then no profile).
void compose_candidate(TopologyCandidate& c, const TopologyPlanOptions& o, const MoeTarget& target,
                       const MoeGpu& gpu, ExpertFormat format) {
  const ReplicaTopology t = parse_topology(c.name, target, format, o.gpus_per_node, "--topologies");
  c.profile_path = "composed:" + c.name;
  try {
    require_fits(target, gpu, t, o.planned_requests, 1);
  } catch (const InputError& e) {
    c.infeasible_memory = e.what();  // without require_fits's "--topology: " prefix
    const std::string prefix = "--topology: ";
    if (c.infeasible_memory.rfind(prefix, 0) == 0) c.infeasible_memory.erase(0, prefix.size());
    return;
  }
  MoeStepOptions step;
  step.expert_imbalance = o.expert_imbalance;
  step.two_batch_overlap = o.two_batch_overlap;
  step.planned_requests = o.planned_requests;
  c.profile =
      std::make_shared<const Profile>(make_moe_profile(target, gpu, t, step, o.date, o.git_sha));
}

// --topologies: each named topology of --target on --gpu, composed (when every option is valid).
void composed_candidates(const TopologyPlanOptions& o, ProblemList& problems, UniqueNames& names,
                         std::vector<TopologyCandidate>& out) {
  const MoeTarget* target = nullptr;
  const MoeGpu* gpu = nullptr;
  std::optional<ExpertFormat> format;
  if (o.target.empty()) {
    problems.add("--topologies: give --target (deepseek-v4-flash or deepseek-v4-pro)");
  } else {
    problems.check([&] { target = &moe_target(o.target); });
  }
  if (o.gpu.empty()) {
    problems.add("--topologies: give --gpu (h100-sxm or h200-sxm)");
  } else {
    problems.check([&] { gpu = &moe_gpu(o.gpu); });
  }
  problems.check([&] { format = parse_expert_format(o.expert_format); });
  if (!(o.expert_imbalance >= 1.0 && o.expert_imbalance <= 8.0)) {
    problems.add("--expert-imbalance: must be in [1, 8] (max / mean rank load)");
  }
  if (o.planned_requests < 1 || o.planned_requests > 4096) {
    problems.add("--planned-requests: must be in 1..4096");
  }
  if (o.gpus_per_node < 1) problems.add("--gpus-per-node must be >= 1");
  for (const auto& name : o.topologies) {
    if (target == nullptr || !format) continue;
    problems.check([&] {
      const ReplicaTopology t =
          parse_topology(name, *target, *format, o.gpus_per_node, "--topologies");
      names.add(t.name, "--topologies");
      out.push_back(candidate_of(t));
    });
  }
  if (!problems.empty()) return;
  for (auto& c : out) compose_candidate(c, o, *target, *gpu, *format);
}

// --topology-profile TOPOLOGY=PATH: a given profile, checked against the topology's GPU unit.
TopologyCandidate given_candidate(const std::string& item, const TopologyPlanOptions& o,
                                  UniqueNames& names) {
  const auto eq = item.find('=');
  if (eq == std::string::npos || eq + 1 == item.size()) {
    throw InputError("--topology-profile: '" + item + "' must be TOPOLOGY=PATH, e.g. " +
                     "dep8=profiles/telemetry/deepseek-v4-flash.json");
  }
  const std::string name = item.substr(0, eq), path = item.substr(eq + 1);
  auto profile = std::make_shared<Profile>(load_profile(path));
  ReplicaTopology t = parse_topology_form(name, "--topology-profile");
  if (is_moe_target(profile->target)) {
    t = parse_topology(name, moe_target(profile->target), ExpertFormat::kFp8, o.gpus_per_node,
                       "--topology-profile");
  }
  const int unit = t.attention == AttentionParallel::kData ? 1 : t.gpus;
  if (profile->gpus != unit) {
    throw InputError(path + ": gpus is " + std::to_string(profile->gpus) + " but " + name +
                     " needs a profile of " + std::to_string(unit) +
                     (t.attention == AttentionParallel::kData
                          ? " (a dep profile is one attention data-parallel GPU)"
                          : " (a tp profile is the whole replica)"));
  }
  names.add(t.name, "--topology-profile");
  TopologyCandidate c = candidate_of(t);
  c.profile_path = path;
  c.profile = std::move(profile);  // the loader refused it if it leaves no KV cache
  return c;
}

}  // namespace

std::vector<TopologyCandidate> topology_candidates(const TopologyPlanOptions& o) {
  ProblemList problems;
  std::vector<TopologyCandidate> out;
  UniqueNames names(problems);
  if (o.max_gpus < 1 || o.max_gpus > 100000) problems.add("--max-gpus must be in [1, 100000]");
  if (!o.topologies.empty()) composed_candidates(o, problems, names, out);
  for (const auto& item : o.topology_profiles) {
    problems.check([&] { out.push_back(given_candidate(item, o, names)); });
  }
  problems.throw_if_any();
  return out;
}

std::vector<TopologyVerdict> choose_topology(const std::vector<TopologyOutcome>& outcomes) {
  const TopologyOutcome* best = nullptr;
  for (const auto& o : outcomes) {
    if (o.infeasible_memory.empty() && o.replicas && (best == nullptr || o.gpus < best->gpus)) {
      best = &o;
    }
  }
  std::vector<TopologyVerdict> verdicts;
  for (const auto& o : outcomes) {
    TopologyVerdict v;
    v.topology = o.topology;
    if (!o.infeasible_memory.empty()) {
      v.status = "infeasible_memory";
      v.why = o.infeasible_memory;
    } else if (!o.replicas) {
      v.status = "slo_missed";
      v.why = "misses the SLO with up to " + std::to_string(o.max_replicas) + " replicas (" +
              std::to_string(o.max_replicas * o.gpus_per_replica) + " GPUs)";
      if (!o.miss_reason.empty()) v.why += ": " + o.miss_reason;
    } else if (&o == best) {
      v.status = "chosen";
      v.why = "fewest GPUs: " + std::to_string(*o.replicas) + " x " + o.topology + " = " +
              std::to_string(o.gpus) + " GPUs";
    } else {
      v.status = "more_gpus";
      v.why = std::to_string(*o.replicas) + " x " + o.topology + " = " + std::to_string(o.gpus) +
              " GPUs" + (o.gpus == best->gpus ? " (a tie; " : " > ") +
              (o.gpus == best->gpus ? best->topology + " is listed first)"
                                    : std::to_string(best->gpus) + " (" + best->topology + ")");
    }
    verdicts.push_back(std::move(v));
  }
  return verdicts;
}

}  // namespace sparksim
