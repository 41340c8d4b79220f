// Routing imbalance on a V4 profile's verify step (see the header for the physics and contract).
#include "experiments/sensitivity/routing_imbalance.hpp"

#include <regex>

#include "common/input_error.hpp"
#include "profiles/moe/moe_step_model.hpp"

namespace sparksim {

double nominal_routing_imbalance() {
  return MoeStepOptions{}.expert_imbalance;
}

ProfileReplica profile_replica(const Profile& profile) {
  if (!is_moe_target(profile.target)) {
    throw InputError("routing_imbalance: the profile's target '" + profile.target +
                     "' is dense (no routed experts); only MoE targets (" +
                     [] {
                       std::string names;
                       for (const auto& n : moe_target_names()) {
                         names += (names.empty() ? "" : ", ") + n;
                       }
                       return names;
                     }() +
                     ") have a routing imbalance");
  }
  static const std::regex replica(
      R"(Replica ((dep|tp)[0-9]+) \([0-9]+ GPUs, EP [0-9]+, ([0-9]+) GPUs per node, ([a-z0-9]+) experts\))");
  std::smatch m;
  if (!std::regex_search(profile.provenance.notes, m, replica)) {
    throw InputError("routing_imbalance: profile " + profile.path +
                     " names no replica ('Replica dep<N> (... GPUs per node, <format> experts)' "
                     "in its provenance notes), so its routed experts cannot be modelled");
  }
  const MoeTarget& target = moe_target(profile.target);
  ProfileReplica out;
  out.topology = parse_topology(m[1].str(), target, parse_expert_format(m[4].str()),
                                std::stoi(m[3].str()), "routing_imbalance");
  out.two_batch_overlap =
      profile.provenance.notes.find("two-batch overlap on") != std::string::npos;
  return out;
}

void apply_routing_imbalance(Profile& profile, double imbalance) {
  const ProfileReplica replica = profile_replica(profile);
  const MoeTarget& target = moe_target(profile.target);
  const MoeGpu& gpu = moe_gpu(profile.provenance.gpu);
  MoeStepOptions nominal;
  nominal.two_batch_overlap = replica.two_batch_overlap;
  MoeStepOptions moved = nominal;
  moved.expert_imbalance = imbalance;
  const MoeStepModel at_nominal(target, gpu, replica.topology, nominal);
  const MoeStepModel at_moved(target, gpu, replica.topology, moved);
  const auto extra_us = [&](std::int64_t tokens) {
    return at_moved.token_part_us(tokens) - at_nominal.token_part_us(tokens);
  };
  VerifyTimeModel& v = profile.verify;
  for (std::size_t i = 0; i < v.dense_tokens.size(); ++i)
    v.dense_us[i] += extra_us(v.dense_tokens[i]);
  for (SpsPoints* sps : {&profile.sps, &profile.sps_capture}) {
    for (std::size_t i = 0; i < sps->tokens.size(); ++i) {
      sps->steps_per_s[i] = 1.0 / (1.0 / sps->steps_per_s[i] + extra_us(sps->tokens[i]) * 1e-6);
    }
  }
}

}  // namespace sparksim
