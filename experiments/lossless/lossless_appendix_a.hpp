// The DSpark paper's Appendix A counterexample, reproduced by sampling with the exact token-level
// machinery: one request, γ = 2, target (0.7, 0.3) over {A, B}, draft (0.5, 0.5) so c_1 = 0.8,
// c_2 = 0.9 when x_1 = A and 0 when x_1 = B, SPS(1) = 1, SPS(2) = 0.5, SPS(3) = 0.45. The policy
// comes from the registry by name and sees exactly what the engine would show it. A lossless
// policy's first output token is A with probability 0.7; the retrospective search verifies x_1
// only when it is A and outputs A with probability 0.5 + 0.5 · 0.7 = 0.85.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "sim/acceptance/token_level/token_level_model.hpp"

namespace sparksim {

struct AppendixAResult {
  std::string policy;
  std::int64_t trials = 0;
  std::int64_t first_is_a = 0;
  double p_a = 0;
  double ci_low = 0, ci_high = 0;         // 99.9% Wilson interval of p_a
  double p_value = 1;                     // two-sided binomial (normal) test of P(A) = 0.7
  std::array<std::int64_t, 3> lengths{};  // how often the policy verified 0, 1, 2 drafts
};

inline constexpr int kAppendixAGamma = 2;

// The tabular world of the counterexample: tokens A = 0, B = 1, and every prompt ends with S = 2.
// Exposed for tests: its confidences must be exactly c_1 = 0.8, c_2 = 0.9 after A, 0 after B.
TokenLevelModel make_appendix_a_model(std::uint64_t seed);

// Throws InputError when the policy spec is unknown or malformed.
AppendixAResult run_appendix_a(const std::string& policy_spec, std::int64_t trials,
                               std::uint64_t seed);

}  // namespace sparksim
