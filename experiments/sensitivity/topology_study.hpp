// A `sparksim v4-topologies` experiment in a sensitivity study: the comparison it repeats (its
// sweep config with the topology config's loads and seeds) on the topology rows the study keeps,
// each row's profile built as v4-topologies builds it (composed from the measured database, or an
// extra profile as it is). The outputs are each row's tier gains (per tier and non-baseline
// system); every input applies to every row alike (a cost input scales each row's own profile).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "experiments/sensitivity/sensitivity_inputs.hpp"
#include "experiments/sensitivity/sweep_outputs.hpp"
#include "experiments/sweep/topology_sweep_config.hpp"

namespace sparksim {

struct TopologyRowProfile {
  std::string name;  // the row's name in v4-topologies' files: "h200-dep8-balanced", a file stem
  std::shared_ptr<const Profile> profile;
};

struct TopologyStudy {
  TopologySweepConfig config;
  SweepConfig comparison;  // its loads and seeds from the topology config, then the study's
  std::vector<TopologyRowProfile> rows;
};

// Loads the topology config and its comparison and builds every row's profile; `keep` names the
// rows to study (empty: every row that fits). Throws InputError naming an unknown row (with the
// valid ones) or one that does not fit (with its numbers).
TopologyStudy load_topology_study(const std::string& path, const std::vector<std::string>& keep);

struct TopologyStudyOutput {
  std::size_t row = 0;
  SweepOutput output;  // a tier gain; its name ends with ", <row>"
};

// Per row (in order), the comparison's tier gains (sweep_outputs' gains).
std::vector<TopologyStudyOutput> topology_study_outputs(const TopologyStudy& study);

// Every row's sweep at one setting of `inputs` (values as in applied_inputs), on `jobs` threads.
std::vector<double> evaluate_topology_outputs(const TopologyStudy& study,
                                              const std::vector<SensitivityInput>& inputs,
                                              const std::vector<double>& values,
                                              const std::vector<TopologyStudyOutput>& outputs,
                                              int jobs);

// Prepares one run of every system on every row with input `i` at its low and at its high value
// (sparksim run's checks), so a bad combination stops before any simulation. Throws InputError
// naming the value and the row.
void check_topology_input(const TopologyStudy& study, const std::vector<SensitivityInput>& inputs,
                          std::size_t i);

}  // namespace sparksim
