// ToyTargetLm: the target language model of the exact token-level mode. A first-order Markov
// chain over a vocabulary of V tokens, built like a tiny bigram LM: dense logits
// β_s · ⟨e_s, f_t⟩ / √d from random d-dimensional input and output embeddings (so, as in real LMs,
// the logit matrix has low rank), a per-state sharpness β_s (some states near-deterministic,
// others flat), then only the top `support` tokens kept (sparse, peaked next-token
// distributions). Small enough that every conditional is an exact table, so committed tokens can
// be tested against it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace sparksim {

struct ToyLmOptions {
  int vocab = 64;          // V, in [2, kMaxToyVocab]
  int support = 8;         // tokens with nonzero probability after each state, in [1, V]
  int embed_dim = 8;       // d: rank of the logit matrix, in [1, V]
  double sharp_min = 1.0;  // β_s is uniform in [sharp_min, sharp_max]: β = 1 is nearly flat over
  double sharp_max = 8.0;  // the support, β = 8 puts most of the mass on the top token
  std::uint64_t seed = 1;  // the model itself (fixed across run seeds, like a trained model)
};

inline constexpr int kMaxToyVocab = 512;

class ToyTargetLm {
 public:
  // A random sparse chain. Every state's support contains (s + 1) mod V (replacing the weakest of
  // the top tokens if needed), so the chain is irreducible whatever the draw.
  static ToyTargetLm generate(const ToyLmOptions& options);
  // An explicit row-stochastic V×V table, row s = P(next | previous = s); its logits are
  // log max(p, 1e-9). Throws std::invalid_argument unless every entry is in [0, 1] and every row
  // sums to 1 within 1e-9.
  ToyTargetLm(std::vector<double> transition, int vocab);

  int vocab() const { return vocab_; }
  // P(· | previous = token): V entries.
  std::span<const double> next(int token) const {
    return {transition_.data() + static_cast<std::size_t>(token) * vocab_,
            static_cast<std::size_t>(vocab_)};
  }
  double prob(int from, int to) const {
    return transition_[static_cast<std::size_t>(from) * vocab_ + to];
  }
  // The dense logits before truncation to the support (V × V row-major): what a drafter distilled
  // from the target can learn, tail included.
  const std::vector<double>& logits() const { return logits_; }
  // Tokens with nonzero probability after `token`, ascending.
  std::span<const int> support(int token) const { return support_[token]; }
  // The stationary distribution (power iteration on the chain made lazy, so it converges even for
  // periodic chains); V entries.
  const std::vector<double>& stationary() const { return stationary_; }

 private:
  int vocab_;
  std::vector<double> transition_;  // V × V row-major
  std::vector<double> logits_;      // V × V row-major
  std::vector<std::vector<int>> support_;
  std::vector<double> stationary_;
};

}  // namespace sparksim
