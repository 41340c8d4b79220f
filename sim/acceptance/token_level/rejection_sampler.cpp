// Rejection-sampling primitives of the token-level mode.
#include "sim/acceptance/token_level/rejection_sampler.hpp"

#include <algorithm>

namespace sparksim {

double acceptance_probability(std::span<const double> p_draft, std::span<const double> p_target) {
  double sum = 0;
  for (std::size_t i = 0; i < p_draft.size(); ++i) sum += std::min(p_draft[i], p_target[i]);
  return std::min(sum, 1.0);
}

bool accept_draft(double p_target, double p_draft, double u) {
  if (!(p_draft > 0)) return false;
  return p_target >= p_draft || u * p_draft < p_target;  // u < p_t / p_d without dividing
}

int sample_categorical(std::span<const double> p, double u) {
  double total = 0;
  int last = -1;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] > 0) {
      total += p[i];
      last = static_cast<int>(i);
    }
  }
  const double target = u * total;
  double cumulative = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] > 0)) continue;
    cumulative += p[i];
    if (target < cumulative) return static_cast<int>(i);
  }
  return last;
}

int sample_residual(std::span<const double> p_target, std::span<const double> p_draft, double u) {
  double total = 0;
  for (std::size_t i = 0; i < p_target.size(); ++i) {
    total += std::max(0.0, p_target[i] - p_draft[i]);
  }
  if (!(total > 1e-15)) return sample_categorical(p_target, u);
  const double target = u * total;
  double cumulative = 0;
  int last = -1;
  for (std::size_t i = 0; i < p_target.size(); ++i) {
    const double r = p_target[i] - p_draft[i];
    if (!(r > 0)) continue;
    cumulative += r;
    last = static_cast<int>(i);
    if (target < cumulative) return last;
  }
  return last;
}

}  // namespace sparksim
