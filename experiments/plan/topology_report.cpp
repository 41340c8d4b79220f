// The topology search's outputs: DIR/topology.csv (how each topology fared per policy and fleet,
// and why it lost) and the one-line answer `sparksim plan` prints per policy.
#include "common/csv_row.hpp"
#include "common/csv_table.hpp"
#include "experiments/plan/capacity_plan.hpp"

namespace sparksim {

// DIR/topology.csv: per policy, fleet and topology, how it fared and why it lost.
std::string topology_csv(const PlanResult& result) {
  std::string csv = std::string(kPlanNameColumns) +
                    ",gpus_per_replica,status,replicas,gpus,engines,prefill_engines,profile,"
                    "profile_source,why\n";
  const std::size_t per_group = result.topologies.size();
  for (std::size_t g = 0; g < result.verdicts.size(); ++g) {
    for (std::size_t c = 0; c < per_group; ++c) {
      const PolicyPlan& plan = result.plans[g * per_group + c];
      const TopologyVerdict& v = result.verdicts[g][c];
      const PlanEvaluation* e = plan.replicas ? plan.at(*plan.replicas) : nullptr;
      CsvRow r(csv);
      plan_name_cells(r, plan).integer(plan.gpus_per_replica).text(v.status);
      if (e != nullptr) {
        r.integer(*plan.replicas)
            .integer(e->fleet.gpus)
            .integer(*plan.replicas * plan.engines_per_replica)
            .integer(e->fleet.prefill_replicas);
      } else {
        r.text("").text("").text("").text("");
      }
      r.text(csv_cell(result.topologies[c].profile_path))
          .text(plan.profile_source)
          .text(csv_cell(v.why))
          .end();
    }
  }
  return csv;
}

std::string topology_answer(const PlanResult& result, std::size_t group) {
  const auto& verdicts = result.verdicts.at(group);
  std::string chosen, others;
  for (const auto& v : verdicts) {
    if (v.status == "chosen") {
      chosen = v.topology + " (" + v.why + ")";
    } else {
      others += (others.empty() ? "" : "; ") + v.topology + " " + v.status + ": " + v.why;
    }
  }
  const PolicyPlan& first = result.plans.at(group * result.topologies.size());
  std::string line = "  topology for " + first.drafter + " + " + first.policy + ": ";
  line += chosen.empty() ? "none meets the SLO" : chosen;
  if (!others.empty()) line += "; lost: " + others;
  return line;
}

}  // namespace sparksim
