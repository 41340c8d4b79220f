// Generation of the sparse peaked chain and its stationary distribution.
#include "sim/acceptance/token_level/toy_target_lm.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

#include "common/rng.hpp"

namespace sparksim {

namespace {

constexpr std::uint64_t kLmStream = 0x746F795F6C6D;  // "toy_lm"

}  // namespace

ToyTargetLm ToyTargetLm::generate(const ToyLmOptions& o) {
  if (o.vocab < 2 || o.vocab > kMaxToyVocab) throw std::invalid_argument("toy LM: bad vocab");
  if (o.support < 1 || o.support > o.vocab) throw std::invalid_argument("toy LM: bad support");
  if (o.embed_dim < 1 || o.embed_dim > o.vocab) throw std::invalid_argument("toy LM: bad dim");
  if (!(o.sharp_min >= 0) || !(o.sharp_max >= o.sharp_min)) {
    throw std::invalid_argument("toy LM: bad sharpness range");
  }
  const auto v = static_cast<std::size_t>(o.vocab);
  const auto d = static_cast<std::size_t>(o.embed_dim);
  std::mt19937_64 rng(derive_seed(o.seed, kLmStream));
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> in(v * d), out(v * d);
  for (double& x : in) x = normal(rng);
  for (double& x : out) x = normal(rng);
  std::vector<double> logits(v * v), table(v * v, 0.0);
  std::vector<int> order(v);
  for (std::size_t s = 0; s < v; ++s) {
    const double sharpness = o.sharp_min + (o.sharp_max - o.sharp_min) * unit(rng);
    double* row = logits.data() + s * v;
    for (std::size_t t = 0; t < v; ++t) {
      double dot = 0;
      for (std::size_t k = 0; k < d; ++k) dot += in[s * d + k] * out[t * d + k];
      row[t] = sharpness * dot / std::sqrt(static_cast<double>(d));
    }
    // Keep the top `support` tokens (ties: lower token first), the successor always among them.
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return row[a] > row[b]; });
    std::vector<int> kept(order.begin(), order.begin() + o.support);
    const int successor = static_cast<int>((s + 1) % v);
    if (std::find(kept.begin(), kept.end(), successor) == kept.end()) kept.back() = successor;
    double top = -1e300, total = 0;
    for (int t : kept) top = std::max(top, row[t]);
    for (int t : kept) total += std::exp(row[t] - top);
    for (int t : kept) table[s * v + t] = std::exp(row[t] - top) / total;
  }
  ToyTargetLm lm(std::move(table), o.vocab);
  lm.logits_ = std::move(logits);
  return lm;
}

ToyTargetLm::ToyTargetLm(std::vector<double> transition, int vocab)
    : vocab_(vocab), transition_(std::move(transition)) {
  if (vocab_ < 2 || vocab_ > kMaxToyVocab) throw std::invalid_argument("toy LM: bad vocab");
  const auto v = static_cast<std::size_t>(vocab_);
  if (transition_.size() != v * v) throw std::invalid_argument("toy LM: table is not V x V");
  support_.resize(v);
  logits_.resize(v * v);
  for (std::size_t i = 0; i < v * v; ++i) logits_[i] = std::log(std::max(transition_[i], 1e-9));
  for (std::size_t s = 0; s < v; ++s) {
    double sum = 0;
    for (std::size_t t = 0; t < v; ++t) {
      const double p = transition_[s * v + t];
      if (!(p >= 0.0 && p <= 1.0)) {
        throw std::invalid_argument("toy LM: P(" + std::to_string(t) + " | " + std::to_string(s) +
                                    ") is outside [0, 1]");
      }
      sum += p;
      if (p > 0) support_[s].push_back(static_cast<int>(t));
    }
    if (std::abs(sum - 1.0) > 1e-9) {
      throw std::invalid_argument("toy LM: row " + std::to_string(s) + " sums to " +
                                  std::to_string(sum));
    }
  }
  // Lazy chain (½I + ½P) has the same stationary distribution and is aperiodic.
  stationary_.assign(v, 1.0 / static_cast<double>(v));
  std::vector<double> next(v);
  for (int iteration = 0; iteration < 10000; ++iteration) {
    std::fill(next.begin(), next.end(), 0.0);
    for (std::size_t s = 0; s < v; ++s) {
      const double mass = 0.5 * stationary_[s];
      next[s] += mass;
      for (int t : support_[s]) next[t] += mass * transition_[s * v + t];
    }
    double change = 0;
    for (std::size_t s = 0; s < v; ++s) change += std::abs(next[s] - stationary_[s]);
    stationary_.swap(next);
    if (change < 1e-13) break;
  }
}

}  // namespace sparksim
