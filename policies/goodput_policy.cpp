// SmartSpec-style batch-wide proposal length from observed acceptance and the SPS table.
#include "policies/goodput_policy.hpp"

namespace sparksim {

GoodputPolicy::GoodputPolicy(double prior_acceptance, double ema_weight, bool synchronous)
    : ema_weight_(ema_weight),
      synchronous_(synchronous),
      accepted_avg_(prior_acceptance),
      rejected_avg_(1.0 - prior_acceptance) {}

double GoodputPolicy::acceptance_estimate() const {
  const double total = accepted_avg_ + rejected_avg_;
  return total > 0 ? accepted_avg_ / total : 0.0;
}

void GoodputPolicy::schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) {
  const auto requests = static_cast<std::size_t>(view.requests);
  const std::int64_t step = step_++;
  slots_.map_batch(view.request_ids.first(requests));
  if (last_step_.size() < slots_.slot_count()) {
    last_step_.resize(slots_.slot_count(), -1);
    last_context_.resize(slots_.slot_count(), 0);
    last_length_.resize(slots_.slot_count(), 0);
  }

  // Learn from the previous step's outcomes.
  double accepted = 0;
  double rejected = 0;
  bool observed = false;
  for (std::size_t r = 0; r < requests; ++r) {
    const std::uint32_t slot = slots_.slots()[r];
    if (slots_.fresh()[r] || last_step_[slot] != step - 1) continue;
    const int ell = last_length_[slot];
    const std::int64_t committed = view.context_tokens[r] - last_context_[slot];
    // Only a verified draft teaches anything; ignore inconsistent deltas rather than trust them.
    if (ell <= 0 || committed < 1 || committed > ell + 1) continue;
    accepted += static_cast<double>(committed - 1);
    rejected += committed - 1 < ell ? 1.0 : 0.0;
    observed = true;
  }
  if (observed) {
    accepted_avg_ += ema_weight_ * (accepted - accepted_avg_);
    rejected_avg_ += ema_weight_ * (rejected - rejected_avg_);
  }

  // Pick k maximising R · E_k · SPS(R (1 + k)); the smallest k on ties.
  const double alpha = acceptance_estimate();
  const auto r_count = static_cast<std::int64_t>(requests);
  int best_k = 0;
  double best = -1;
  double expected = 0;  // E_k
  double power = 1;     // α^k
  for (int k = 0; k <= view.gamma; ++k) {
    expected += power;
    power *= alpha;
    const double goodput =
        static_cast<double>(r_count) * expected * sps.steps_per_s(r_count * (1 + k));
    if (goodput > best) {
      best = goodput;
      best_k = k;
    }
  }

  for (std::size_t r = 0; r < requests; ++r) {
    const std::uint32_t slot = slots_.slots()[r];
    lengths[r] = best_k;
    last_step_[slot] = step;
    last_context_[slot] = view.context_tokens[r];
    last_length_[slot] = best_k;
  }
}

}  // namespace sparksim
