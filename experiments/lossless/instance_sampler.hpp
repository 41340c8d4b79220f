// The statistical check of an ExactInstance: runs the step `trials` times with real draws (drafts
// from the drafter's tables, the acceptance test u < p_t / p_d, the residual or bonus token, then
// the target's continuation to γ + 1 tokens), asks the policy for every trial, and G-tests each
// request's committed blocks against the target's paths. It shares nothing with the exact check
// but the policy's decision (PolicyReplay) and the rejection-sampling primitives of the token-level
// mode, so the two checks are independent oracles for each other.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/lossless/exact_instance.hpp"

namespace sparksim {

struct InstanceSampleResult {
  std::int64_t trials = 0;
  double statistic = 0;
  std::int64_t degrees_of_freedom = 0;
  double p_value = 1;
  bool distorted = false;                            // p_value < alpha
  std::vector<std::vector<double>> first_frequency;  // per request, V: the first committed token
};

// Deterministic for a given seed. Throws InputError for an unknown policy.
InstanceSampleResult sample_instance(const ExactInstance& instance, const std::string& policy_spec,
                                     std::int64_t trials, std::uint64_t seed, double alpha);

}  // namespace sparksim
