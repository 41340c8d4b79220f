// Composing and loading the topology sweep's profiles (moved from topology_sweep.cpp unchanged).
#include "experiments/sweep/topology_profiles.hpp"

#include <filesystem>

#include "common/input_error.hpp"
#include "common/version.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/step_composition/moe_measured_db_profile.hpp"

namespace sparksim {

namespace fs = std::filesystem;

void build_topology_profiles(const TopologySweepConfig& c, std::vector<TopologyEntry>& entries,
                             std::vector<Profile>& profiles, ProblemList& problems) {
  const MoeTarget& target = moe_target(c.target);
  for (const std::string& gpu : c.gpus) {
    for (const std::string& topology : c.topologies) {
      for (bool overlap : c.two_batch_overlap) {
        for (const std::string& routing : c.routing) {
          TopologyEntry e;
          e.gpu = moe_gpu(gpu).name;
          e.topology = topology;
          e.two_batch_overlap = overlap;
          e.routing = routing;
          e.name = gpu + "-" + topology + (overlap ? "-tbo-" : "-") + routing;
          MoeMeasuredDbOptions o;
          o.database_dir = c.database_dir;
          o.distribution = routing;
          o.two_batch_overlap = overlap;
          try {
            const ReplicaTopology t =
                parse_topology(topology, target, ExpertFormat::kFp8, c.gpus_per_node);
            Profile p = make_moe_measured_db_profile(target, moe_gpu(gpu), t, o,
                                                     kTopologyProfileDate, sparksim_git_sha())
                            .profile;
            e.kv_tokens = p.kv_capacity_tokens();
            e.profile_label = p.label();
            profiles.push_back(std::move(p));
          } catch (const InputError& err) {
            // A topology that does not fit is an outcome of the sweep, reported with its numbers.
            e.refused = err.what();
            profiles.emplace_back();
          }
          entries.push_back(std::move(e));
        }
      }
    }
  }
  for (const std::string& path : c.extra_profiles) {
    TopologyEntry e;
    e.extra = true;
    e.name = fs::path(path).stem().string();
    problems.check([&] {
      Profile p = load_profile(path);
      if (p.target != c.target) {
        throw InputError(c.path, 0,
                         "extra profile " + path + " is for " + p.target + ", not " + c.target);
      }
      e.gpu = p.provenance.gpu;
      e.kv_tokens = p.kv_capacity_tokens();
      e.profile_label = p.label();
      profiles.push_back(std::move(p));
    });
    entries.push_back(std::move(e));
  }
}

}  // namespace sparksim
