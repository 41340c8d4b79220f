// VerificationPolicy: decides, every decode step, how many drafted tokens ℓ_r ∈ [0, γ] each
// running request sends to the target for verification. Policies see only BatchView (drafted
// confidences, contexts, ids) and the scheduler's SPS table, never the engine's internals and,
// unless their registry row says they are unsafe, never the hidden acceptance outcome.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "profiles/time_model.hpp"

namespace sparksim {

struct BatchView {
  int gamma = 1;                                 // draft tokens proposed per request this step
  std::int64_t requests = 0;                     // R
  std::span<const std::uint64_t> request_ids;    // R entries, ascending admission order
  std::span<const float> confidences;            // R × γ row-major: c[r][k-1] for position k
  std::span<const std::int64_t> context_tokens;  // R entries: tokens already in each KV cache
  // Hidden outcome (drafts that would be accepted if all γ were verified). Empty unless the
  // policy's registry row is flagged `sees_hidden_outcome` (oracle / retrospective baselines).
  std::span<const int> hidden_accepted;
};

class VerificationPolicy {
 public:
  virtual ~VerificationPolicy() = default;

  // Writes lengths[r] ∈ [0, γ] for every r < view.requests. The engine checks the range and
  // stops the run with an error if a policy writes anything else.
  virtual void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) = 0;

  // True if deciding needs the current step's draft outputs on the host before the verify
  // launch: such a policy pays the profile's host overhead every step. Static and lagged
  // (asynchronous) policies overlap their decision with the previous step and pay nothing.
  virtual bool synchronous() const = 0;

  // False when schedule() never reads view.confidences: the engine then lets an acceptance model
  // that can skip them do so (they are a third of a calibrated request-step's work and change no
  // outcome; see AcceptanceModel::confidences_optional).
  virtual bool reads_confidences() const { return true; }

  // Stateful policies (e.g. asynchronous top-K) forget a request when it leaves the batch.
  virtual void on_request_left(std::uint64_t /*request_id*/) {}
};

}  // namespace sparksim
