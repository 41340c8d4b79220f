// Bisection for the point where a comparison's margin changes sign.
#include "experiments/sensitivity/break_even.hpp"

#include <cmath>

namespace sparksim {

std::optional<BreakEven> find_break_even(const std::function<double(double)>& margin, double low,
                                         double high, int max_steps) {
  double lo = low, hi = high;
  const double m_lo = margin(lo), m_hi = margin(hi);
  if (!std::isfinite(m_lo) || !std::isfinite(m_hi)) return std::nullopt;
  if ((m_lo > 0) == (m_hi > 0)) return std::nullopt;
  const bool positive_at_lo = m_lo > 0;
  BreakEven out;
  for (int i = 0; i < max_steps; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double m = margin(mid);
    ++out.steps;
    if (!std::isfinite(m)) break;  // e.g. a tier unmet at mid: keep the bracket so far
    ((m > 0) == positive_at_lo ? lo : hi) = mid;
  }
  out.bracket_lo = lo;
  out.bracket_hi = hi;
  out.value = 0.5 * (lo + hi);
  return out;
}

}  // namespace sparksim
