// AcceptanceContext: what an acceptance model is built for (the run's target, drafter and seed).
// Kept apart from the registry so that the models and their builders, which the registry lists,
// need not include the registry itself (no include loop).
#pragma once

#include <cstdint>
#include <string>

#include "profiles/drafter.hpp"

namespace sparksim {

// Acceptance depends on the target model (the profile's), the drafter and the seed of the run.
struct AcceptanceContext {
  DrafterSpec drafter;
  std::string target;  // e.g. "qwen3-8b" (Profile::target)
  std::uint64_t seed = 1;
  // False: check the spec fully but skip the Monte Carlo tuning a head target (auc=, ece=) asks
  // for (about a second of sampling), keeping the default head. For the spec fuzzer, whose
  // subject is the parser; the tuning itself is tested in tests/sim/acceptance/.
  bool tune_heads = true;
};

}  // namespace sparksim
