// Routing imbalance on a V4 profile's verify step (see the header for the physics and contract).
#include "experiments/sensitivity/routing_imbalance.hpp"

#include <cctype>
#include <optional>
#include <string_view>

#include "common/input_error.hpp"
#include "profiles/moe/moe_step_model.hpp"

namespace sparksim {

namespace {

// The replica sparksim writes into every V4 profile's notes:
// "Replica dep8 (8 GPUs, EP 8, 8 GPUs per node, fp8 experts)". Parsed by hand rather than with
// <regex>: GCC 12 reports false -Wmaybe-uninitialized warnings inside <regex> at -O1 (the
// sanitizer build), and warnings stay at zero.
struct ReplicaNote {
  std::string topology;  // "dep8", "tp4"
  int gpus_per_node = 0;
  std::string expert_format;
};

// Consumes `word` at the front of `s`.
bool take(std::string_view& s, std::string_view word) {
  if (s.substr(0, word.size()) != word) return false;
  s.remove_prefix(word.size());
  return true;
}

// Consumes one or more characters that satisfy `accept`; returns them (empty = no match).
template <typename Accept>
std::string_view take_run(std::string_view& s, Accept accept) {
  std::size_t n = 0;
  while (n < s.size() && accept(static_cast<unsigned char>(s[n]))) ++n;
  const std::string_view run = s.substr(0, n);
  s.remove_prefix(n);
  return run;
}

bool is_digit(unsigned char c) {
  return std::isdigit(c) != 0;
}
bool is_lower_or_digit(unsigned char c) {
  return std::islower(c) != 0 || std::isdigit(c) != 0;
}

std::optional<ReplicaNote> parse_replica_at(std::string_view s) {
  ReplicaNote note;
  if (!take(s, "Replica ")) return std::nullopt;
  std::string_view kind = s.substr(0, 3) == "dep" ? "dep" : "tp";
  if (!take(s, kind)) return std::nullopt;
  const std::string_view width = take_run(s, is_digit);
  if (width.empty()) return std::nullopt;
  note.topology = std::string(kind) + std::string(width);
  if (!take(s, " (") || take_run(s, is_digit).empty() || !take(s, " GPUs, EP ") ||
      take_run(s, is_digit).empty() || !take(s, ", ")) {
    return std::nullopt;
  }
  const std::string_view per_node = take_run(s, is_digit);
  if (per_node.empty() || per_node.size() > 6 || !take(s, " GPUs per node, ")) {
    return std::nullopt;
  }
  note.gpus_per_node = std::stoi(std::string(per_node));
  const std::string_view format = take_run(s, is_lower_or_digit);
  if (format.empty() || !take(s, " experts)")) return std::nullopt;
  note.expert_format = std::string(format);
  return note;
}

std::optional<ReplicaNote> find_replica_note(const std::string& notes) {
  for (std::size_t at = notes.find("Replica "); at != std::string::npos;
       at = notes.find("Replica ", at + 1)) {
    if (auto note = parse_replica_at(std::string_view(notes).substr(at))) return note;
  }
  return std::nullopt;
}

}  // namespace

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
  const std::optional<ReplicaNote> note = find_replica_note(profile.provenance.notes);
  if (!note) {
    throw InputError("routing_imbalance: profile " + profile.path +
                     " names no replica ('Replica dep<N> (... GPUs per node, <format> experts)' "
                     "in its provenance notes), so its routed experts cannot be modelled");
  }
  const MoeTarget& target = moe_target(profile.target);
  ProfileReplica out;
  out.topology = parse_topology(note->topology, target, parse_expert_format(note->expert_format),
                                note->gpus_per_node, "routing_imbalance");
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
