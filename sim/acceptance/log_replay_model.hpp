// LogReplayModel (`--acceptance-log PATH`, registry row `replay`): drives the simulator with
// recorded acceptance instead of a generative model, keyed by (request id, decode step).
//
//  - A sparksim acceptance log (acceptance_log.hpp): step t of request r gets the logged
//    confidences and hidden outcome of (r, t). Replayed under the policy that wrote it, the run
//    is reproduced exactly; under another policy each request-step still commits
//    min(ℓ, accepted) + 1 from the record. A request needing more steps than were logged (a
//    policy verifying less than the logging run) reuses its records from step 0, and the summary
//    says how often.
//  - A Spec-Bench JSONL file (specbench.hpp): request i replays question i (file order, turns
//    concatenated; wrapping to question i mod N, noted) step by step: hidden outcome = recorded
//    length - 1, capped at γ (noted). The file has no confidences, so they are synthesised to be
//    calibrated and informative: with p̄_k the question category's mean conditional acceptance
//    (from the file's own histogram) and o_k the outcome of position k (the record's for
//    k <= accepted + 1; for later positions, which the target never checked, a draw from p̄_k),
//    c_k = σ(logit p̄_k + Δ s_k) with s_k ~ N(±Δ/2, 1): the exact posterior given the signal, so
//    P(o_k | c_k) = c_k, and Δ (`signal=`) sets the ranking quality. Positions beyond the recorded
//    drafter's depth get c = 0 (that drafter never proposed them).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/acceptance/acceptance_context.hpp"
#include "sim/acceptance/acceptance_log.hpp"
#include "sim/acceptance/acceptance_model.hpp"
#include "sim/acceptance/specbench.hpp"

namespace sparksim {

class LogReplayModel final : public AcceptanceModel {
 public:
  // Reads `path` (format detected from its first character). InputError for a malformed file or
  // a sparksim log written for another γ.
  LogReplayModel(const std::string& path, const AcceptanceContext& context, double signal);

  void init_request(std::uint64_t request_id, Domain domain, AcceptanceState& state) override;
  void draft(std::span<const DraftSlot> slots, int gamma, std::span<float> confidences,
             std::span<int> hidden_accepted) override;
  std::vector<std::string> notes() const override;
  std::string reproduces() const override { return reproduces_; }

 private:
  void draft_specbench(const DraftSlot& slot, int gamma, float* confidences, int& hidden);

  std::string path_;
  int gamma_;
  bool specbench_ = false;
  std::string reproduces_;
  std::string drafter_note_;
  // sparksim log
  AcceptanceLog log_;
  // Spec-Bench: per question, the concatenated per-step lengths and the category's curve logits.
  std::vector<std::vector<int>> lengths_;
  std::vector<int> curve_of_question_;
  std::vector<std::vector<float>> curve_logits_;  // per category, γ entries
  float signal_ = 0, half_signal_sq_ = 0;
  std::uint64_t key_signal_ = 0;
  // What the summary reports.
  std::int64_t steps_ = 0, steps_wrapped_ = 0, steps_capped_ = 0, requests_wrapped_ = 0;
};

}  // namespace sparksim
