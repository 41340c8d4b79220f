// ToyDrafter: the drafters of the exact token-level mode, built from the toy target the way real
// ones are. All start from the drafter's own imperfect copy of the target, T̂ = softmax(L + noise ·
// z): the target's dense logits L (untruncated, so drafts can fall outside the target's support)
// plus standard normal z per entry (what a distilled draft model knows).
//  - parallel: position k samples from the k-step marginal T̂^k[anchor], independently of the
//    other drafts (one forward from the anchor, as DFlash-style block drafters): acceptance of
//    position k ≥ 2 decays because the marginal spreads while the target conditions on x_{k-1}.
//  - markov: the parallel logits plus a rank-r bias indexed by the previously sampled draft token
//    (DSpark's Markov head): logits_k = ½ log T̂^k[anchor] + B[x_{k-1}] for k ≥ 2, B the best
//    rank-r approximation (subspace iteration) of the row-centred logits of T̂. The target's logits
//    have rank d (ToyLmOptions::embed_dim): a head of rank r < d recovers part of the
//    conditioning, r >= d all of it (and filters some of the copy's noise).
//  - autoregressive: position k samples from T̂[x_{k-1}] (EAGLE-style, one pass per token).
//  - adversarial: 80% of the mass on tokens the target never emits after x_{k-1}, 20% on its least
//    likely one: almost every draft is rejected, the residual does all the work.
//  - tabular: explicit per-position tables (worked examples such as the paper's Appendix A).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/acceptance/token_level/toy_target_lm.hpp"

namespace sparksim {

enum class ToyDrafterKind { kParallel, kMarkov, kAutoregressive, kAdversarial, kTabular };

// "parallel", "markov", "autoregressive", "adversarial" (tabular is built in code only).
inline constexpr std::string_view kToyDrafterNames[] = {"parallel", "markov", "autoregressive",
                                                        "adversarial"};
// Throws std::invalid_argument for an unknown name.
ToyDrafterKind parse_toy_drafter(std::string_view name);
std::string_view toy_drafter_name(ToyDrafterKind kind);

struct ToyDrafterOptions {
  ToyDrafterKind kind = ToyDrafterKind::kMarkov;
  double noise = 0.35;  // σ of the logit perturbation of the drafter's copy of the target
  int rank = 6;         // Markov head's bias rank, in [1, V]
  std::uint64_t seed = 1;
};

class ToyDrafter {
 public:
  // A drafter for blocks of up to `gamma` positions.
  static ToyDrafter build(const ToyTargetLm& target, int gamma, const ToyDrafterOptions& options);
  // tables[k-1] is V×V row-major: row p = the distribution of position k when the previous token
  // is p (the anchor for k = 1). Each row must be a distribution (std::invalid_argument if not).
  static ToyDrafter tabular(std::vector<std::vector<double>> tables, int vocab);

  ToyDrafterKind kind() const { return kind_; }
  int gamma() const { return gamma_; }
  int vocab() const { return vocab_; }

  // Writes into `out` (V entries, a distribution) the draft distribution of position k (1-based,
  // k <= gamma()) given the anchor (the last committed token) and the previously drafted token
  // (x_{k-1}; the anchor itself when k = 1). It is the distribution x_k was sampled from, which
  // rejection sampling needs exactly.
  void distribution(int k, int anchor, int previous, std::span<double> out) const;

 private:
  ToyDrafter() = default;
  std::span<const double> row(const std::vector<double>& table, int r) const {
    return {table.data() + static_cast<std::size_t>(r) * vocab_, static_cast<std::size_t>(vocab_)};
  }

  ToyDrafterKind kind_ = ToyDrafterKind::kMarkov;
  int vocab_ = 0;
  int gamma_ = 0;
  std::vector<double> copy_;                 // T̂, V × V
  std::vector<std::vector<double>> power_;   // power_[k-1] = T̂^k, V × V (parallel, markov)
  std::vector<double> bias_;                 // Markov head: rank-r centred logits, V × V
  std::vector<double> adversarial_;          // V × V
  std::vector<std::vector<double>> tables_;  // tabular
};

}  // namespace sparksim
