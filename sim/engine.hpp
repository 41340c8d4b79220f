// Engine: one serving replica with continuous batching and speculative decoding.
//
// It owns the running set, the FIFO waiting queue and KV accounting, and runs steps:
// admit while KV fits → (chunked) prefill → draft → policy chooses ℓ_r → verify B = Σ(1+ℓ_r)
// (+ prefill tokens) → the step lasts what the TimeModel says → commit min(ℓ_r, accepted_r) + 1.
// The engine is a passive state machine driven by an event loop (Simulation, or the cluster
// layer): try_start_step() plans a step and returns its end time; finish_step() applies it.
//
// KV: each running request reserves prompt + generated + γ + 1 tokens (the lookahead of one
// step's drafts); rejected drafts roll back, so after a commit the reservation is recomputed.
// When growth overflows capacity at a step start, the most recently admitted request not in a
// running step is preempted (recompute: its prompt + generated tokens are prefilled again).
//
// Front end (EngineConfig::front_end, sim/front_end.hpp): a request submitted at `now` is taken in
// by the replica's API server first and joins the waiting queue at the first step start at or
// after its intake is done (an engine holding nothing else waits for it with an intake wait, a
// lane "step" that does no work and is reported nowhere); every chunk of tokens a step commits
// for a request is streamed through the same server, and the request's first_token, last_token
// and done are when the client receives them. With zero costs both are the identity.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "policies/verification_policy.hpp"
#include "profiles/drafter.hpp"
#include "profiles/live_sps.hpp"
#include "profiles/time_model.hpp"
#include "sim/acceptance/acceptance_model.hpp"
#include "sim/front_end.hpp"
#include "sim/metrics.hpp"
#include "sim/request.hpp"

namespace sparksim {

enum class PrefillMode : std::uint8_t {
  kChunked,   // prefill chunks share decode steps under the per-step token budget (default)
  kSeparate,  // a separate prefill stage (its own GPUs and timeline) feeds the decode batch
};

struct EngineConfig {
  DrafterSpec drafter;
  std::int64_t kv_capacity_tokens = 0;   // > 0
  std::int64_t max_running = 256;        // concurrent requests holding KV (vLLM max_num_seqs)
  std::int64_t max_batch_tokens = 8192;  // per-step token budget (vLLM max_num_batched_tokens)
  PrefillMode prefill_mode = PrefillMode::kChunked;
  bool policy_sees_hidden_outcome = false;  // from the policy's registry row
  FrontEndCosts front_end;                  // the API server's costs (zero = none); from a preset
};

class Engine {
 public:
  using CompletionHandler = std::function<void(const Request&, SimTime)>;
  // One finished step's batch, for exporting the step sequence (`sparksim run --write-steps`):
  // per decode request its id, cached context before the step, verify width 1 + ℓ and commits;
  // per prefill chunk the request id, tokens already prefilled and the chunk.
  struct StepItem {
    std::uint64_t request = 0;
    std::int64_t context = 0;
    std::int64_t width = 0;
    std::int64_t commits = 0;
    bool prefill = false;
  };
  using StepObserver =
      std::function<void(SimTime start, SimTime end, const std::vector<StepItem>& items)>;
  // A chunk of tokens reached the client at `delivered` (the request's state already counts it:
  // generated includes them, last_token == delivered). In delivery order.
  using DeliveryObserver = std::function<void(const Request& request, SimTime delivered)>;

  Engine(const EngineConfig& config, const TimeModel& time_model, const SpsTable& sps,
         AcceptanceModel& acceptance, VerificationPolicy& policy, MetricsCollector& metrics);

  // A request arrives at `now` (it is taken in by the front end first, when there is one).
  // Returns false (and keeps nothing) if it can never fit in KV:
  // prompt + output + γ + 1 > capacity. The caller counts such rejections.
  bool submit(std::uint64_t id, const RequestSpec& spec, SimTime now);
  // Disaggregated serving: a request whose prompt was prefilled on another replica arrives at `now`
  // with its prompt's KV and its first output token (delivered at `now`); it keeps its original
  // `arrival` (so TTFT spans prefill and transfer) and decodes without prefilling. Same KV check
  // and return value as submit(). Precondition: spec.output_tokens >= 2.
  bool submit_prefilled(std::uint64_t id, const RequestSpec& spec, SimTime arrival, SimTime now);

  // Plans and starts a step on `lane` at `now` if that lane is idle and has work; returns the
  // step's end time. kPrefill is only used in PrefillMode::kSeparate.
  std::optional<SimTime> try_start_step(EngineLane lane, SimTime now);
  // Applies the step of `lane` that ends at `now`: commits tokens, completes requests.
  void finish_step(EngineLane lane, SimTime now);

  void set_completion_handler(CompletionHandler handler) { on_complete_ = std::move(handler); }
  // The `live` SPS belief: every step the policy gets `live`'s table at that step's requests,
  // contexts, draft time and host overhead instead of the static table (nullptr: the static one).
  void use_live_sps(LiveSps* live) { live_sps_ = live; }
  // Called at every step's end, before its commits apply (no cost when unset).
  void set_step_observer(StepObserver observer) { on_step_ = std::move(observer); }
  void set_delivery_observer(DeliveryObserver observer) { on_delivery_ = std::move(observer); }
  const FrontEnd& front_end() const { return front_end_; }

  bool lane_busy(EngineLane lane) const { return plans_[static_cast<int>(lane)].active; }
  // When the lane's current (or, once finished, latest) step started.
  SimTime step_start(EngineLane lane) const { return plans_[static_cast<int>(lane)].start; }
  bool idle() const { return running_.empty() && waiting_.empty() && intake_.empty(); }
  std::int64_t running_count() const { return static_cast<std::int64_t>(running_.size()); }
  std::int64_t waiting_count() const { return static_cast<std::int64_t>(waiting_.size()); }
  std::int64_t kv_reserved() const { return kv_reserved_; }
  // KV the waiting queue will reserve when admitted (what a KV-aware router must count as taken).
  std::int64_t kv_queued_demand() const { return kv_queued_demand_; }
  std::int64_t kv_capacity() const { return config_.kv_capacity_tokens; }
  // Outstanding work in tokens (prompts still to prefill + outputs still to generate): routers use
  // it.
  std::int64_t outstanding_tokens() const { return outstanding_tokens_; }
  const EngineConfig& config() const { return config_; }
  // For a cluster's replicas: see MetricsCollector::batch_itl_adds (no change to any output).
  void batch_itl_adds() { metrics_.batch_itl_adds(); }
  // Cache hints for a fleet's loop, which warms the replica whose step ends next while it works on
  // another: prefetches only, no state or output changes. prefetch_object: this object's lines;
  // prefetch_step: what finishing `lane`'s step and starting the next read through them (call it
  // once prefetch_object's lines have arrived, so its own reads hit).
  void prefetch_object() const;
  void prefetch_step(EngineLane lane) const;

 private:
  // One request's verification in a step. One record, not four arrays: a fleet replica's step
  // reads it cold, and a record is one cache line for two requests where the arrays were four.
  struct Verification {
    std::uint32_t slot = 0;
    std::int64_t commits = 0;          // tokens committed
    std::int64_t accepted_drafts = 0;  // min(ℓ, accepted)
    std::int64_t verified_drafts = 0;  // ℓ
  };
  // One lane's in-flight step: what to apply at its end.
  struct StepPlan {
    bool active = false;
    bool intake_wait = false;  // no work: the engine waits for its front end's next intake
    SimTime start = 0, end = 0;
    // The first `decodes` entries: the vector only grows (sized per step, it was a measurable
    // share of a small step).
    std::size_t decodes = 0;
    std::vector<Verification> verifications;
    std::vector<std::pair<std::uint32_t, std::int64_t>> prefill_chunks;  // slot, tokens
    StepRecord record;
  };

  std::uint32_t allocate_slot();
  std::uint32_t enqueue(std::uint64_t id, const RequestSpec& spec, SimTime now);
  void take_in(std::uint32_t slot, SimTime now);
  void release_intake(SimTime now);
  SimTime deliver(SimTime now);
  std::int64_t reservation_of(const Request& r) const;
  void preempt_until_fits();
  void admit(SimTime now);
  void plan_decode(StepPlan& plan);
  void plan_prefill(StepPlan& plan, std::int64_t budget);
  void complete(std::uint32_t slot, SimTime now);
  void report_step(const StepPlan& plan);

  // What plan_decode fills and reads within one call (the drafts' slots, the draws, the policy's
  // view and its answer): one set per thread, shared by every engine on it (plan_decode never
  // runs inside another). A fleet's engines then keep one warm set in cache instead of a cold one
  // each: five or six cold lines less per step.
  struct DecodeScratch {
    std::vector<DraftSlot> draft_slots;
    std::vector<float> confidences;
    std::vector<int> hidden_accepted;
    std::vector<int> lengths;
    std::vector<std::uint64_t> ids;
    std::vector<std::int64_t> contexts;
  };
  static DecodeScratch& decode_scratch();

  EngineConfig config_;
  const TimeModel& time_model_;
  const SpsTable& sps_;
  LiveSps* live_sps_ = nullptr;
  AcceptanceModel& acceptance_;
  VerificationPolicy& policy_;
  MetricsCollector& metrics_;
  // False when neither the policy reads confidences nor the model needs to draw them.
  bool draw_confidences_ = true;
  CompletionHandler on_complete_;
  StepObserver on_step_;
  DeliveryObserver on_delivery_;
  std::vector<StepItem> step_items_;
  FrontEnd front_end_;
  // Requests being taken in, in intake order, and their batches (oldest first): a batch's
  // `count` requests leave the front of intake_ together at its `ready` time.
  struct IntakeBatch {
    SimTime ready = 0;
    std::size_t count = 0;
  };
  std::deque<std::uint32_t> intake_;
  std::deque<IntakeBatch> intake_batches_;

  std::vector<Request> slots_;  // request storage, reused after completion (bounded memory)
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> running_;  // admission order
  std::deque<std::uint32_t> waiting_;   // FIFO; preempted requests return to the front
  std::int64_t kv_reserved_ = 0;
  std::int64_t kv_queued_demand_ = 0;  // Σ reservation_of(r) over waiting_
  std::int64_t outstanding_tokens_ = 0;
  StepPlan plans_[2];
  BatchShape plan_shape_;  // shape of the step being planned

  // Scratch reused every step (no per-step allocation once warm).
  std::vector<std::uint32_t> finished_;
};

}  // namespace sparksim
