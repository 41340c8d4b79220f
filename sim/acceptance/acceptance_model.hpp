// AcceptanceModel: per request and decode step, draws the drafter's confidences (what a policy may
// see) and the hidden outcome (how many leading drafts the target would accept if all γ were
// verified; never shown to safe policies). Richer models (heterogeneous, replayed, token-level)
// implement the same interface; the engine never changes for them.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "traces/domain.hpp"

namespace sparksim {

// Per-request state a model may keep across steps, stored by the engine beside the request so
// models need no maps keyed by request. Each model uses the fields it names; the rest stay zero.
struct AcceptanceState {
  // calibrated: the request's difficulty d, its latent state x_t and the step t it belongs to,
  // and mix64(request id), cached because every step's hash needs it.
  double difficulty = 0;
  double latent = 0;
  std::int64_t latent_step = 0;
  std::uint64_t id_hash = 0;
  // replay: the request's first record in the log (or its Spec-Bench question) and how many
  // steps it has recorded.
  std::uint64_t first_record = 0;
  std::uint64_t record_count = 0;
};

struct DraftSlot {
  std::uint64_t request_id = 0;
  Domain domain = Domain::kChat;
  std::int64_t decode_step = 0;  // this request's own step counter, 0-based
  std::int64_t generated = 0;    // output tokens committed so far
  AcceptanceState* state = nullptr;
};

class AcceptanceModel {
 public:
  virtual ~AcceptanceModel() = default;

  // Called once when a request is first admitted.
  virtual void init_request(std::uint64_t request_id, Domain domain, AcceptanceState& state) = 0;

  // For each slot r: writes confidences[r*γ + k-1] for k = 1..γ (conditional acceptance
  // probability of position k given 1..k-1 accepted, as the drafter reports it) and
  // hidden_accepted[r] ∈ [0, γ]. Must be a pure function of (run seed, slot), not of the batch.
  virtual void draft(std::span<const DraftSlot> slots, int gamma, std::span<float> confidences,
                     std::span<int> hidden_accepted) = 0;
  // True when draft() also takes an empty `confidences` (nobody reads them) and then writes the
  // same hidden outcomes and moves its state exactly as with them. A recorder that logs them
  // keeps the default.
  virtual bool confidences_optional() const { return false; }
  // True when the model keeps nothing of its own between calls (every request's state is in its
  // AcceptanceState), so one instance can serve many engines: a cluster's replicas then share one
  // and its tables stay in cache.
  virtual bool shareable() const { return false; }

  // After the policy decided: slot r verifies lengths[r] drafts and commits
  // min(lengths[r], hidden_accepted[r]) + 1 tokens (fewer if the output ends). Models that produce
  // real tokens (token-level mode) sample the committed tokens here; recorders log the decision.
  // Same slots, in the same order, as the preceding draft() call.
  virtual void on_verified(std::span<const DraftSlot> /*slots*/, std::span<const int> /*lengths*/) {
  }

  // The request completed or was preempted: per-request memory (if any) can go.
  virtual void on_request_left(std::uint64_t /*request_id*/) {}

  // Lines for the run summary's `acceptance_notes`, read after the run: what the model assumed or
  // changed that a reader must know (a fallback curve, replayed steps that wrapped around).
  virtual std::vector<std::string> notes() const { return {}; }
  // The acceptance behaviour the model reproduces when that is not its own spec: a log replay
  // names the spec recorded in the log, so the replayed run's summary equals the original's.
  // Empty: the spec itself.
  virtual std::string reproduces() const { return {}; }
};

}  // namespace sparksim
