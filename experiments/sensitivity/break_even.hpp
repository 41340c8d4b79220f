// Break-even values: the input value at which a comparison flips (the margin, e.g. a tier gain
// minus 1, changes sign), found by bisection over model evaluations with the other inputs at
// nominal. At most `max_steps` evaluations past the two ends; the answer is the bracket's
// midpoint, and the bracket is reported so a reader sees its width.
#pragma once

#include <functional>
#include <optional>

namespace sparksim {

inline constexpr int kMaxBreakEvenSteps = 10;

struct BreakEven {
  double value = 0;  // midpoint of the final bracket
  double bracket_lo = 0;
  double bracket_hi = 0;
  int steps = 0;  // evaluations inside the range
};

// nullopt when margin(low) and margin(high) have the same sign (no flip inside [low, high]) or
// either is not finite. Assumes one sign change in the range (monotone margin).
std::optional<BreakEven> find_break_even(const std::function<double(double)>& margin, double low,
                                         double high, int max_steps = kMaxBreakEvenSteps);

}  // namespace sparksim
