// TokenLevelModel: the exact token-level acceptance mode. Each request carries a real token
// sequence of the toy target LM; every step the drafter samples γ draft tokens, the target's
// rejection sampling is pre-drawn (the hidden outcome at full depth), the policy sees only the
// confidences, and on_verified() commits exactly what verifying ℓ drafts would: the accepted
// prefix, then a residual sample at the first rejection or a bonus token from p_t.
//
// All randomness of a step (drafts, acceptance uniforms, the extra token's uniform, confidence
// noise) is drawn in draft(), before the policy decides, from counter-based streams keyed by
// (seed, request, step, position): a policy cannot steer a draw, and a policy whose choice of ℓ
// depends on drafts at or after the positions it concerns (through their confidences) shows up
// as a distorted committed-token distribution, which is what the losslessness validator tests.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "sim/acceptance/acceptance_model.hpp"
#include "sim/acceptance/token_level/toy_drafter.hpp"
#include "sim/acceptance/token_level/toy_target_lm.hpp"

namespace sparksim {

// What a policy sees is the exact per-step acceptance α = 1 − ½‖p_d − p_t‖₁ of each position given
// the drafted prefix, passed through c = σ((logit α + noise·z) / temperature), z standard normal.
// temperature < 1 is over-confident (as raw confidence heads are), noise > 0 degrades ranking.
// With noise = 0 and temperature = 1 (the default), c = α exactly (no clipping).
struct ConfidenceNoise {
  double noise = 0.0;
  double temperature = 1.0;
};

// Sees every token the model commits, in commit order.
class TokenCommitObserver {
 public:
  virtual ~TokenCommitObserver() = default;
  // `tokens` were committed after `previous`. speculative: by a verification step whose anchor
  // is `previous` (tokens[0] is the step's first committed token); otherwise one token sampled
  // directly from the target (the token a prefill, or a recompute after preemption, emits).
  virtual void on_committed(std::uint64_t request_id, int previous, std::span<const int> tokens,
                            bool speculative) = 0;
};

struct TokenLevelOptions {
  ConfidenceNoise confidence;
  int start_token = -1;           // every prompt ends with this token; -1: drawn per request
  bool retain_sequences = false;  // keep sequences of requests that left (tests, validators)
};

class TokenLevelModel final : public AcceptanceModel {
 public:
  // The drafter must have been built for `gamma` positions (or more).
  TokenLevelModel(ToyTargetLm target, ToyDrafter drafter, int gamma, std::uint64_t seed,
                  const TokenLevelOptions& options = {});

  // Draws the prompt's last token (the first anchor) from the stationary distribution, keyed by
  // the request id, unless options.start_token is set.
  void init_request(std::uint64_t request_id, Domain domain, AcceptanceState& state) override;
  // gamma must equal the model's. A request the model has not seen is initialised here. Tokens
  // the engine generated without verification (the prefill's token: slot.generated exceeds what
  // this model committed) are first sampled from the target.
  void draft(std::span<const DraftSlot> slots, int gamma, std::span<float> confidences,
             std::span<int> hidden_accepted) override;
  // Commits min(ℓ, accepted) + 1 tokens per slot. On a request's last step the engine may keep
  // fewer (the output length ends the request); the model's sequence then runs past the end by
  // at most γ tokens, all of them genuine samples of the process.
  void on_verified(std::span<const DraftSlot> slots, std::span<const int> lengths) override;
  // Drops the request's sequence, keeping its last token (a preempted request comes back and
  // continues from it), unless options.retain_sequences.
  void on_request_left(std::uint64_t request_id) override;

  // Erases everything about the request: a later draft() with its id starts a fresh sequence.
  // For harnesses that run many independent one-step trials (the Appendix A reproduction).
  void forget(std::uint64_t request_id) { requests_.erase(request_id); }

  const ToyTargetLm& target() const { return target_; }
  const ToyDrafter& drafter() const { return drafter_; }
  int gamma() const { return gamma_; }
  void set_observer(TokenCommitObserver* observer) { observer_ = observer; }

  // The request's tokens: [0] the prompt's last token, then every committed output token (only
  // the last one once the request left, unless retain_sequences). nullptr for an unknown id.
  const std::vector<int>* sequence(std::uint64_t request_id) const;
  // The exact acceptance α_k (before confidence noise) of the latest draft() of the request,
  // positions 1..γ; empty for an unknown id. For tests of the suffix-decay mechanism.
  std::span<const double> last_exact_acceptance(std::uint64_t request_id) const;

 private:
  struct RequestTokens {
    std::vector<int> tokens;
    std::int64_t committed = 0;  // output tokens committed, including dropped ones
    bool pending = false;        // draft() ran, on_verified() not yet
    std::int64_t step = 0;
    int hidden = 0;
    std::vector<int> drafts;          // x_1..x_γ
    std::vector<double> extra_u;      // uniform of the residual/bonus token at positions 1..γ+1
    std::vector<double> exact_alpha;  // α_1..α_γ
  };

  RequestTokens& request(std::uint64_t request_id);
  void commit(std::uint64_t request_id, RequestTokens& r, int previous, std::span<const int> tokens,
              bool speculative);
  float confidence(double alpha, std::uint64_t stream, std::uint64_t step, int position) const;

  ToyTargetLm target_;
  ToyDrafter drafter_;
  int gamma_;
  std::uint64_t key_;
  TokenLevelOptions options_;
  TokenCommitObserver* observer_ = nullptr;
  std::map<std::uint64_t, RequestTokens> requests_;
  std::vector<double> p_draft_, p_target_scratch_;  // scratch, V entries
  std::vector<int> committed_scratch_;
};

}  // namespace sparksim
