// The simplest acceptance model: position k of every block is accepted with a constant
// conditional probability p[domain][k] (independent Bernoulli draws), and the drafter's reported
// confidence is exactly that p (perfectly calibrated, no per-request heterogeneity). Curves come
// from published figures (see the .cpp) or one constant p for worked examples.
// The accepted count of independent per-position trials has survival P(accepted >= k) = S_k =
// Π_{i<=k} p_i, so one uniform u per request-step gives it exactly: #{k : u < S_k}.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "profiles/drafter.hpp"
#include "sim/acceptance/acceptance_model.hpp"

namespace sparksim {

class PositionBernoulliModel final : public AcceptanceModel {
 public:
  // Published per-domain, per-position curves for the drafter's family, extended to γ positions.
  PositionBernoulliModel(const DrafterSpec& drafter, std::uint64_t seed);
  // Every position of every domain accepted with probability p (worked examples, tests).
  PositionBernoulliModel(double p, int gamma, std::uint64_t seed);

  void init_request(std::uint64_t request_id, Domain domain, AcceptanceState& state) override;
  void draft(std::span<const DraftSlot> slots, int gamma, std::span<float> confidences,
             std::span<int> hidden_accepted) override;

  // p[domain][k-1]: the conditional acceptance of position k.
  double conditional_acceptance(Domain domain, int position) const;

 private:
  void finish_curves();
  std::array<std::vector<float>, kDomainCount> p_;
  std::array<std::vector<double>, kDomainCount> survival_;  // S_k = Π_{i<=k} p_i
  std::uint64_t key_;
};

}  // namespace sparksim
