// PolicyReplay: asks a registry policy for one step's lengths on an ExactInstance, the way the
// engine would: a fresh policy, the instance's earlier steps replayed into it (so stateful
// policies such as async-topk reach the instance's lagged state), then the checked step with the
// given confidences (and the hidden outcome only if the policy's registry row sees it). Shared by
// the exact enumeration and the sampling check, which must ask the policy the same question.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/named_spec.hpp"
#include "experiments/lossless/exact_instance.hpp"
#include "policies/policy_registry.hpp"

namespace sparksim {

class PolicyReplay {
 public:
  // Throws InputError for an unknown or malformed policy spec.
  PolicyReplay(const ExactInstance& instance, const std::string& policy_spec);

  bool sees_hidden_outcome() const { return row_->sees_hidden_outcome; }
  const PolicyRow& row() const { return *row_; }

  // confidences: R × γ; hidden: R (read only if the policy sees the hidden outcome). Writes R
  // lengths; throws std::logic_error if the policy returns one outside [0, γ].
  void decide(std::span<const float> confidences, std::span<const int> hidden,
              std::span<int> lengths);

 private:
  const ExactInstance& instance_;
  std::string text_;
  NamedSpec spec_;
  const PolicyRow* row_;
  SpsTable sps_;
  std::vector<std::uint64_t> ids_;
  std::vector<std::int64_t> contexts_;
  std::vector<float> history_confidences_;
  std::vector<int> history_hidden_, scratch_;
};

}  // namespace sparksim
