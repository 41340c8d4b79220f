// The token-level acceptance model: drafting, pre-drawn rejection sampling, commits.
#include "sim/acceptance/token_level/token_level_model.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "common/rng.hpp"
#include "sim/acceptance/token_level/rejection_sampler.hpp"

namespace sparksim {

namespace {

// Every draw is counter_uniform(request key, (index << 12) | (purpose << 7) | position), index =
// the request's step (or token index for direct samples), position <= kMaxGamma + 1 < 128: no two
// draws of a run share a counter.
enum Purpose : std::uint64_t {
  kDraftToken = 0,
  kAcceptance = 1,
  kExtraToken = 2,
  kNoiseA = 3,
  kNoiseB = 4,
  kDirectToken = 5,
  kStartToken = 6,
};

std::uint64_t counter(std::uint64_t index, Purpose purpose, int position) {
  return (index << 12) | (static_cast<std::uint64_t>(purpose) << 7) |
         static_cast<std::uint64_t>(position);
}

}  // namespace

TokenLevelModel::TokenLevelModel(ToyTargetLm target, ToyDrafter drafter, int gamma,
                                 std::uint64_t seed, const TokenLevelOptions& options)
    : target_(std::move(target)),
      drafter_(std::move(drafter)),
      gamma_(gamma),
      key_(derive_seed(seed, static_cast<std::uint64_t>(StreamId::kAcceptance))),
      options_(options) {
  if (gamma_ < 1 || gamma_ > 100) throw std::invalid_argument("token-level: bad gamma");
  if (drafter_.gamma() < gamma_) {
    throw std::invalid_argument("token-level: the drafter has fewer positions than gamma");
  }
  if (drafter_.vocab() != target_.vocab()) {
    throw std::invalid_argument("token-level: drafter and target vocabularies differ");
  }
  if (options_.start_token >= target_.vocab()) {
    throw std::invalid_argument("token-level: start token outside the vocabulary");
  }
  if (!(options_.confidence.noise >= 0) || !(options_.confidence.temperature > 0)) {
    throw std::invalid_argument("token-level: confidence noise must be >= 0, temperature > 0");
  }
  const auto v = static_cast<std::size_t>(target_.vocab());
  p_draft_.resize(v);
  p_target_scratch_.resize(v);
}

TokenLevelModel::RequestTokens& TokenLevelModel::request(std::uint64_t request_id) {
  auto it = requests_.find(request_id);
  if (it != requests_.end()) return it->second;
  RequestTokens& r = requests_[request_id];
  int start = options_.start_token;
  if (start < 0) {
    const double u = counter_uniform(mix64(key_ ^ mix64(request_id)), counter(0, kStartToken, 0));
    start = sample_categorical(target_.stationary(), u);
  }
  r.tokens.push_back(start);
  return r;
}

void TokenLevelModel::init_request(std::uint64_t request_id, Domain, AcceptanceState&) {
  request(request_id);
}

float TokenLevelModel::confidence(double alpha, std::uint64_t key, std::uint64_t step,
                                  int position) const {
  const ConfidenceNoise& c = options_.confidence;
  if (c.noise == 0 && c.temperature == 1.0) return static_cast<float>(alpha);
  const double a = std::clamp(alpha, 1e-6, 1.0 - 1e-6);
  double logit = std::log(a / (1.0 - a));
  if (c.noise > 0) {
    const double u1 = counter_uniform(key, counter(step, kNoiseA, position));
    const double u2 = counter_uniform(key, counter(step, kNoiseB, position));
    logit += c.noise * std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  return static_cast<float>(1.0 / (1.0 + std::exp(-logit / c.temperature)));
}

void TokenLevelModel::commit(std::uint64_t request_id, RequestTokens& r, int previous,
                             std::span<const int> tokens, bool speculative) {
  r.tokens.insert(r.tokens.end(), tokens.begin(), tokens.end());
  r.committed += static_cast<std::int64_t>(tokens.size());
  if (observer_ != nullptr) observer_->on_committed(request_id, previous, tokens, speculative);
}

void TokenLevelModel::draft(std::span<const DraftSlot> slots, int gamma,
                            std::span<float> confidences, std::span<int> hidden_accepted) {
  if (gamma != gamma_) {
    throw std::logic_error("token-level model built for gamma " + std::to_string(gamma_) +
                           ", asked for " + std::to_string(gamma));
  }
  const auto g = static_cast<std::size_t>(gamma);
  for (std::size_t s = 0; s < slots.size(); ++s) {
    const DraftSlot& slot = slots[s];
    RequestTokens& r = request(slot.request_id);
    const std::uint64_t key = mix64(key_ ^ mix64(slot.request_id));
    // Tokens the engine produced without speculation come straight from the target.
    if (r.committed > slot.generated) {
      throw std::logic_error("token-level: request " + std::to_string(slot.request_id) +
                             " has more committed tokens than the engine generated");
    }
    while (r.committed < slot.generated) {
      const int previous = r.tokens.back();
      const double u =
          counter_uniform(key, counter(static_cast<std::uint64_t>(r.committed), kDirectToken, 0));
      const int token = sample_categorical(target_.next(previous), u);
      commit(slot.request_id, r, previous, {&token, 1}, false);
    }

    const int anchor = r.tokens.back();
    const auto step = static_cast<std::uint64_t>(slot.decode_step);
    r.drafts.resize(g);
    r.extra_u.resize(g + 1);
    r.exact_alpha.resize(g);
    r.pending = true;
    r.step = slot.decode_step;
    r.hidden = -1;
    int previous = anchor;
    for (int k = 1; k <= gamma; ++k) {
      drafter_.distribution(k, anchor, previous, p_draft_);
      const auto p_target = target_.next(previous);
      const double alpha = acceptance_probability(p_draft_, p_target);
      const int x =
          sample_categorical(p_draft_, counter_uniform(key, counter(step, kDraftToken, k)));
      const double u = counter_uniform(key, counter(step, kAcceptance, k));
      if (r.hidden < 0 && !accept_draft(p_target[x], p_draft_[x], u)) r.hidden = k - 1;
      r.drafts[k - 1] = x;
      r.exact_alpha[k - 1] = alpha;
      confidences[s * g + (k - 1)] = confidence(alpha, key, step, k);
      previous = x;
    }
    if (r.hidden < 0) r.hidden = gamma;
    for (int k = 1; k <= gamma + 1; ++k)
      r.extra_u[k - 1] = counter_uniform(key, counter(step, kExtraToken, k));
    hidden_accepted[s] = r.hidden;
  }
}

void TokenLevelModel::on_verified(std::span<const DraftSlot> slots, std::span<const int> lengths) {
  for (std::size_t s = 0; s < slots.size(); ++s) {
    RequestTokens& r = request(slots[s].request_id);
    if (!r.pending || r.step != slots[s].decode_step) {
      throw std::logic_error("token-level: on_verified without the matching draft()");
    }
    r.pending = false;
    const int ell = lengths[s];
    if (ell < 0 || ell > gamma_) throw std::logic_error("token-level: length outside [0, gamma]");
    const int accepted = std::min(ell, r.hidden);
    const int anchor = r.tokens.back();
    committed_scratch_.assign(r.drafts.begin(), r.drafts.begin() + accepted);
    const int previous = accepted == 0 ? anchor : r.drafts[accepted - 1];
    const auto p_target = target_.next(previous);
    const double u = r.extra_u[accepted];
    int extra;
    if (accepted < ell) {
      // Position accepted+1 was verified and rejected: one draw from the residual.
      drafter_.distribution(accepted + 1, anchor, previous, p_draft_);
      extra = sample_residual(p_target, p_draft_, u);
    } else {
      extra = sample_categorical(p_target, u);  // every verified draft accepted: the bonus token
    }
    committed_scratch_.push_back(extra);
    commit(slots[s].request_id, r, anchor, committed_scratch_, true);
  }
}

void TokenLevelModel::on_request_left(std::uint64_t request_id) {
  if (options_.retain_sequences) return;
  auto it = requests_.find(request_id);
  if (it == requests_.end()) return;
  RequestTokens& r = it->second;
  r.tokens.erase(r.tokens.begin(), r.tokens.end() - 1);
  r.tokens.shrink_to_fit();
  // Step scratch: re-created by draft() if the request comes back.
  r.drafts = {};
  r.extra_u = {};
  r.exact_alpha = {};
}

const std::vector<int>* TokenLevelModel::sequence(std::uint64_t request_id) const {
  const auto it = requests_.find(request_id);
  return it == requests_.end() ? nullptr : &it->second.tokens;
}

std::span<const double> TokenLevelModel::last_exact_acceptance(std::uint64_t request_id) const {
  const auto it = requests_.find(request_id);
  if (it == requests_.end()) return {};
  return it->second.exact_alpha;
}

}  // namespace sparksim
