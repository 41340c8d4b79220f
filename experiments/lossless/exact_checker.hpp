// The exact losslessness check: enumerates every joint outcome of one decode step of an
// ExactInstance (each request's drafted tokens, and its hidden acceptance count when the policy
// is allowed to see it), builds the confidences the head shows for it, asks the policy (a fresh
// one from the registry, with the instance's earlier steps replayed into it) for the lengths, and
// adds the rejection-sampling result in closed form: the accepted prefix, then the residual
// normalise(max(0, p_t − p_d)) at the first rejection or the bonus token from p_t.
//
// What is compared: each request's committed block, extended to γ + 1 tokens by sampling from the
// target (what a lossless continuation would add), against the target's own γ + 1-token paths
// from the anchor. A step is lossless for a given earlier history exactly when, for every request,
// these two distributions are equal; and if every step is lossless for every history, so is any
// number of steps (each step's output, given everything before it, is the target's continuation;
// induction over the steps). The total-variation distance is 0 up to rounding (< 1e-12) for a
// lossless policy, and is the size of the distortion otherwise.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/lossless/exact_instance.hpp"

namespace sparksim {

// TV distances at or below this are rounding: the verdict is `lossless`.
inline constexpr double kExactTolerance = 1e-12;

struct ExactOutcome {
  double probability = 0;
  std::vector<int> drafts;         // R × γ
  std::vector<int> hidden;         // R; -1 where the policy does not see the outcome
  std::vector<float> confidences;  // R × γ, what the policy saw
  std::vector<int> lengths;        // R, what the policy decided
};

struct ExactRequestResult {
  std::vector<double> committed;  // V^(γ+1) paths, first token most significant
  std::vector<double> target;
  double tv = 0;                                      // ½ Σ |committed − target|
  std::vector<double> first_committed, first_target;  // the block's first token, V each
  double first_tv = 0;
};

struct ExactResult {
  std::string policy;
  bool sees_hidden_outcome = false;
  std::vector<ExactRequestResult> requests;
  double max_tv = 0;
  int worst_request = 0;
  // With several requests: the TV distance of all requests' blocks together against the product
  // of the targets' (a policy that coupled requests' outputs would show here only); -1 when the
  // joint table would be too large (more than kMaxJointWork entries times outcomes).
  double joint_tv = -1;
  bool distorted = false;  // distortion() > kExactTolerance
  double distortion() const { return max_tv > joint_tv ? max_tv : joint_tv; }
  std::int64_t outcomes_enumerated = 0;
  std::vector<ExactOutcome> outcomes;  // kept when asked (and at most kMaxKeptOutcomes)
};

inline constexpr std::size_t kMaxKeptOutcomes = 4096;
inline constexpr double kMaxJointWork = 5e7;

// Throws InputError for an unknown policy spec or an instance too large to enumerate (the message
// names the count), std::logic_error if the policy returns a length outside [0, γ].
ExactResult check_exact(const ExactInstance& instance, const std::string& policy_spec,
                        bool keep_outcomes = false);

// The target's distribution of the γ + 1 tokens after `anchor` (paths, first token most
// significant): Π T(y_i | y_{i-1}). Exposed for the sampling check and tests.
std::vector<double> target_paths(const ExactRequest& request, int vocab, int gamma);

}  // namespace sparksim
