// The step shapes on which a measured-db profile is fitted and judged, by region: decode at small
// and large batch, long context, and prefill chunks (alone and beside decode requests). Every
// shape fits in the GPU's KV cache. The same list serves the fit (most points) and the fidelity
// table (the points held out of it), and the analytic-vs-database comparison.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiles/step_composition/step_composer.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {

struct FidelityPoint {
  StepShape shape;
  std::string region;  // "decode small B", "decode large B", "long context", "prefill chunks"
  std::string label() const;
};

std::vector<FidelityPoint> fidelity_points(std::int64_t kv_capacity_tokens);

// The time model's view of a composed step: R·W verify tokens, Σ context R·L, R·W·L verify
// pairs, and N·(P + (N + 1) / 2) prefill pairs.
BatchShape batch_shape_of(const StepShape& s);

}  // namespace sparksim
