// Engine step logic: admission under KV and concurrency limits, chunked or separate prefill,
// speculative verification, commits, preemption by recomputation.
#include "sim/engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace sparksim {

Engine::Engine(const EngineConfig& config, const TimeModel& time_model, const SpsTable& sps,
               AcceptanceModel& acceptance, VerificationPolicy& policy, MetricsCollector& metrics)
    : config_(config),
      time_model_(time_model),
      sps_(sps),
      acceptance_(acceptance),
      policy_(policy),
      metrics_(metrics),
      draw_confidences_(policy.reads_confidences() || !acceptance.confidences_optional()),
      front_end_(config.front_end) {
  if (config_.kv_capacity_tokens <= 0) throw std::invalid_argument("kv capacity must be > 0");
  if (config_.max_running <= 0) throw std::invalid_argument("max_running must be > 0");
  if (config_.max_batch_tokens <= 0) throw std::invalid_argument("max_batch_tokens must be > 0");
}

std::int64_t Engine::reservation_of(const Request& r) const {
  return r.spec.prompt_tokens + r.generated + config_.drafter.gamma + 1;
}

std::uint32_t Engine::allocate_slot() {
  if (!free_slots_.empty()) {
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  slots_.emplace_back();
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

// Stores the request as queued at `now` (not yet in any queue) and counts its work and KV demand.
std::uint32_t Engine::enqueue(std::uint64_t id, const RequestSpec& spec, SimTime now) {
  const std::uint32_t slot = allocate_slot();
  Request& r = slots_[slot];
  r = Request{};
  r.id = id;
  r.spec = spec;
  r.arrival = now;
  r.phase = RequestPhase::kQueued;
  outstanding_tokens_ += spec.prompt_tokens + spec.output_tokens;
  kv_queued_demand_ += reservation_of(r);
  return slot;
}

bool Engine::submit(std::uint64_t id, const RequestSpec& spec, SimTime now) {
  const std::int64_t worst = spec.prompt_tokens + spec.output_tokens + config_.drafter.gamma + 1;
  if (worst > config_.kv_capacity_tokens) return false;
  const std::uint32_t slot = enqueue(id, spec, now);
  if (front_end_.active()) {
    take_in(slot, now);
  } else {
    waiting_.push_back(slot);
  }
  return true;
}

// The front end takes the request in; it reaches the waiting queue at the first step start at or
// after its batch's ready time (release_intake). Ready times never decrease: the worker is FIFO
// and the latency is one constant.
void Engine::take_in(std::uint32_t slot, SimTime now) {
  const FrontEnd::Intake in = front_end_.take_in(now, slots_[slot].spec.prompt_tokens);
  if (in.joined) {
    intake_batches_.back().ready = in.ready;
    ++intake_batches_.back().count;
  } else {
    intake_batches_.push_back(IntakeBatch{in.ready, 1});
  }
  intake_.push_back(slot);
}

void Engine::release_intake(SimTime now) {
  while (!intake_batches_.empty() && intake_batches_.front().ready <= now) {
    for (std::size_t i = 0; i < intake_batches_.front().count; ++i) {
      waiting_.push_back(intake_.front());
      intake_.pop_front();
    }
    intake_batches_.pop_front();
  }
}

// When a chunk of tokens a step ending at `now` committed for a request reaches the client.
SimTime Engine::deliver(SimTime now) {
  return front_end_.active() ? front_end_.deliver(now) : now;
}

bool Engine::submit_prefilled(std::uint64_t id, const RequestSpec& spec, SimTime arrival,
                              SimTime now) {
  if (spec.output_tokens < 2) throw std::invalid_argument("submit_prefilled: nothing to decode");
  const std::int64_t worst = spec.prompt_tokens + spec.output_tokens + config_.drafter.gamma + 1;
  if (worst > config_.kv_capacity_tokens) return false;
  const std::uint32_t slot = enqueue(id, spec, now);
  waiting_.push_back(slot);
  Request& r = slots_[slot];
  r.arrival = arrival;
  r.generated = 1;
  ++kv_queued_demand_;  // its reservation includes the first token
  r.first_token = now;
  r.last_token = now;
  r.kv_resident = true;
  outstanding_tokens_ -= spec.prompt_tokens + 1;  // enqueue() counted the prompt and every output
  return true;
}

void Engine::preempt_until_fits() {
  while (kv_reserved_ > config_.kv_capacity_tokens) {
    // Victim: the most recently admitted request that no in-flight step is using (vLLM's LIFO).
    auto it = std::find_if(running_.rbegin(), running_.rend(),
                           [&](std::uint32_t s) { return !slots_[s].in_flight; });
    if (it == running_.rend()) return;  // everything is in a step; the next step start retries
    const std::uint32_t slot = *it;
    running_.erase(std::next(it).base());
    Request& r = slots_[slot];
    kv_reserved_ -= r.kv_reserved;
    // Its KV is lost: the remaining prefill becomes the whole prompt plus what it generated.
    const std::int64_t recompute = r.spec.prompt_tokens + r.generated;
    outstanding_tokens_ += recompute - (r.prefill_needed - r.prefilled);
    r.kv_reserved = 0;
    r.kv_resident = false;
    r.phase = RequestPhase::kQueued;
    r.prefill_needed = recompute;
    r.prefilled = 0;
    ++r.preemptions;
    metrics_.on_preemption();
    policy_.on_request_left(r.id);
    acceptance_.on_request_left(r.id);
    waiting_.push_front(slot);
    kv_queued_demand_ += reservation_of(r);
  }
}

void Engine::admit(SimTime now) {
  while (!waiting_.empty() && static_cast<std::int64_t>(running_.size()) < config_.max_running) {
    const std::uint32_t slot = waiting_.front();
    Request& r = slots_[slot];
    const std::int64_t need = reservation_of(r);
    if (kv_reserved_ + need > config_.kv_capacity_tokens) break;  // FIFO: nobody overtakes
    waiting_.pop_front();
    kv_queued_demand_ -= need;
    if (r.first_admitted < 0) {
      r.first_admitted = now;
      acceptance_.init_request(r.id, r.spec.domain, r.acceptance_state);
    }
    r.phase = r.kv_resident ? RequestPhase::kDecode : RequestPhase::kPrefill;
    r.prefill_needed = r.kv_resident ? 0 : r.spec.prompt_tokens + r.generated;
    r.prefilled = 0;
    r.kv_reserved = need;
    kv_reserved_ += need;
    running_.push_back(slot);
  }
}

Engine::DecodeScratch& Engine::decode_scratch() {
  thread_local DecodeScratch scratch;
  return scratch;
}

void Engine::plan_decode(StepPlan& plan) {
  const int gamma = config_.drafter.gamma;
  // Sized for every running request and filled by index, then cut to the requests that decode:
  // four push_backs per request-step were a measurable share of a small step. The scratch
  // vectors only grow; the spans below carry the count.
  const std::size_t most = running_.size();
  DecodeScratch& scratch = decode_scratch();
  if (scratch.draft_slots.size() < most) {
    scratch.draft_slots.resize(most);
    scratch.ids.resize(most);
    scratch.contexts.resize(most);
    scratch.hidden_accepted.resize(most);
    scratch.lengths.resize(most);
  }
  if (scratch.confidences.size() < most * static_cast<std::size_t>(gamma)) {
    scratch.confidences.resize(most * static_cast<std::size_t>(gamma));
  }
  if (plan.verifications.size() < most) plan.verifications.resize(most);
  std::size_t count = 0;
  for (std::uint32_t slot : running_) {
    Request& r = slots_[slot];
    if (r.phase != RequestPhase::kDecode || r.in_flight) continue;
    plan.verifications[count].slot = slot;
    scratch.draft_slots[count] =
        DraftSlot{r.id, r.spec.domain, r.decode_steps, r.generated, &r.acceptance_state};
    scratch.ids[count] = r.id;
    scratch.contexts[count] = r.context_tokens();
    ++count;
  }
  plan.decodes = count;
  if (count == 0) return;

  const std::span<const DraftSlot> draft_slots(scratch.draft_slots.data(), count);
  const std::span<float> confidences(
      scratch.confidences.data(), draw_confidences_ ? count * static_cast<std::size_t>(gamma) : 0);
  const std::span<int> hidden_accepted(scratch.hidden_accepted.data(), count);
  const std::span<int> lengths(scratch.lengths.data(), count);
  std::fill(lengths.begin(), lengths.end(), -1);
  acceptance_.draft(draft_slots, gamma, confidences, hidden_accepted);

  BatchView view;
  view.gamma = gamma;
  view.requests = static_cast<std::int64_t>(count);
  view.request_ids = std::span<const std::uint64_t>(scratch.ids.data(), count);
  view.confidences = confidences;
  view.context_tokens = std::span<const std::int64_t>(scratch.contexts.data(), count);
  if (config_.policy_sees_hidden_outcome) view.hidden_accepted = hidden_accepted;
  const SpsTable* sps = &sps_;
  if (live_sps_ != nullptr) {
    std::int64_t context_sum = 0;
    for (std::size_t i = 0; i < count; ++i) context_sum += scratch.contexts[i];
    const auto requests = static_cast<std::int64_t>(count);
    SimTime other = time_model_.draft_time(config_.drafter, requests, context_sum);
    if (policy_.synchronous()) other += time_model_.host_overhead();
    // Every B a policy can ask about: R to R(γ + 1), and the one past it that ratio bounds read.
    sps = &live_sps_->at(requests, context_sum, requests * (gamma + 1) + 1, other);
  }
  policy_.schedule(view, *sps, lengths);

  BatchShape& shape = plan_shape_;
  for (std::size_t i = 0; i < count; ++i) {
    const int ell = scratch.lengths[i];
    if (ell < 0 || ell > gamma) {
      throw std::logic_error("policy returned length " + std::to_string(ell) + " for request " +
                             std::to_string(scratch.ids[i]) + "; must be in [0, " +
                             std::to_string(gamma) + "]");
    }
    Verification& v = plan.verifications[i];
    const Request& r = slots_[v.slot];
    const std::int64_t accepted = std::min(ell, scratch.hidden_accepted[i]);
    const std::int64_t remaining = r.spec.output_tokens - r.generated;
    v.commits = std::min(accepted + 1, remaining);
    v.accepted_drafts = accepted;
    v.verified_drafts = ell;
    shape.verify_tokens += 1 + ell;
    shape.decode_context_tokens += scratch.contexts[i];
    shape.verify_attention_pairs += (1 + ell) * scratch.contexts[i];
  }
  shape.decode_requests = static_cast<std::int64_t>(count);
  acceptance_.on_verified(draft_slots, lengths);
}

void Engine::plan_prefill(StepPlan& plan, std::int64_t budget) {
  plan.prefill_chunks.clear();
  BatchShape& shape = plan_shape_;
  for (std::uint32_t slot : running_) {
    if (budget <= 0) break;
    Request& r = slots_[slot];
    if (r.phase != RequestPhase::kPrefill || r.in_flight) continue;
    const std::int64_t chunk = std::min(budget, r.prefill_needed - r.prefilled);
    budget -= chunk;
    plan.prefill_chunks.emplace_back(slot, chunk);
    shape.prefill_tokens += chunk;
    shape.prefill_attention_pairs += chunk * (r.prefilled + (chunk + 1) / 2);
  }
}

std::optional<SimTime> Engine::try_start_step(EngineLane lane, SimTime now) {
  // The lane is checked before its plan is read: without a separate prefill stage the prefill
  // lane's plan is never used, and a fleet replica's would be one more cold line per step.
  const bool separate = config_.prefill_mode == PrefillMode::kSeparate;
  if (lane == EngineLane::kPrefill && !separate) return std::nullopt;
  StepPlan& plan = plans_[static_cast<int>(lane)];
  if (plan.active) return std::nullopt;

  release_intake(now);
  preempt_until_fits();
  admit(now);

  plan_shape_ = BatchShape{};
  plan.decodes = 0;
  plan.prefill_chunks.clear();
  if (lane == EngineLane::kMain) plan_decode(plan);
  if (lane == EngineLane::kPrefill || !separate) {
    plan_prefill(plan, config_.max_batch_tokens - plan_shape_.verify_tokens);
  }
  if (plan.decodes == 0 && plan.prefill_chunks.empty()) {
    // Nothing to run and nothing held but requests still being taken in: wait for the first. (An
    // engine holding requests always has a lane in a step, whose end releases the intake.)
    if (lane != EngineLane::kMain || !running_.empty() || !waiting_.empty() ||
        intake_batches_.empty()) {
      return std::nullopt;
    }
    plan.active = true;
    plan.intake_wait = true;
    plan.start = now;
    plan.end = intake_batches_.front().ready;
    return plan.end;
  }

  SimTime duration = time_model_.verify_time(plan_shape_);
  if (plan.decodes != 0) {
    duration += time_model_.draft_time(config_.drafter, plan_shape_.decode_requests,
                                       plan_shape_.decode_context_tokens);
    if (policy_.synchronous()) duration += time_model_.host_overhead();
  }
  // A step always advances time: a zero-length step would let the loop spin at one instant.
  duration = std::max<SimTime>(duration, 1);

  if (now > 8 * kMaxSimTime - duration) {
    throw std::overflow_error("engine: simulated time passed " +
                              std::to_string(8 * (kMaxSimTime / kNanosPerSecond)) +
                              " s, the simulator's limit");
  }
  plan.active = true;
  plan.start = now;
  plan.end = now + duration;
  for (std::size_t i = 0; i < plan.decodes; ++i)
    slots_[plan.verifications[i].slot].in_flight = true;
  for (const auto& [slot, chunk] : plan.prefill_chunks) slots_[slot].in_flight = true;

  StepRecord& rec = plan.record;
  rec = StepRecord{};
  rec.start = plan.start;
  rec.end = plan.end;
  rec.lane = lane;
  rec.decode_requests = plan_shape_.decode_requests;
  rec.verify_tokens = plan_shape_.verify_tokens;
  rec.prefill_tokens = plan_shape_.prefill_tokens;
  rec.running = static_cast<std::int64_t>(running_.size());
  rec.kv_reserved = kv_reserved_;
  return plan.end;
}

void Engine::finish_step(EngineLane lane, SimTime now) {
  StepPlan& plan = plans_[static_cast<int>(lane)];
  if (!plan.active || plan.end != now) throw std::logic_error("finish_step without its step");
  plan.active = false;
  if (plan.intake_wait) {
    plan.intake_wait = false;  // did nothing; the step start it triggers releases the intake
    return;
  }
  finished_.clear();
  StepRecord& rec = plan.record;
  if (on_step_) report_step(plan);

  for (std::size_t i = 0; i < plan.decodes; ++i) {
    const Verification& v = plan.verifications[i];
    const std::uint32_t slot = v.slot;
    Request& r = slots_[slot];
    r.in_flight = false;
    const std::int64_t n = v.commits;
    const SimTime delivered = deliver(now);
    metrics_.on_tokens(delivered, r.last_token, n);
    r.generated += n;
    r.decode_committed += n;
    r.last_token = delivered;
    if (on_delivery_) on_delivery_(r, delivered);
    ++r.decode_steps;
    r.drafts_verified += v.verified_drafts;
    r.drafts_accepted += v.accepted_drafts;
    outstanding_tokens_ -= n;
    rec.decode_committed += n;
    rec.drafts_verified += v.verified_drafts;
    rec.drafts_accepted += v.accepted_drafts;
    // Rejected drafts roll back; the lookahead for the next step is re-reserved.
    const std::int64_t reservation = reservation_of(r);
    kv_reserved_ += reservation - r.kv_reserved;
    r.kv_reserved = reservation;
    if (r.generated >= r.spec.output_tokens) finished_.push_back(slot);
  }
  for (const auto& [slot, chunk] : plan.prefill_chunks) {
    Request& r = slots_[slot];
    r.in_flight = false;
    r.prefilled += chunk;
    r.prefill_tokens_computed += chunk;
    outstanding_tokens_ -= chunk;
    if (r.prefilled < r.prefill_needed) continue;
    // The forward over the last prefilled position samples the next token: the first output
    // token for a fresh request, the next one after a recompute.
    r.phase = RequestPhase::kDecode;
    const SimTime delivered = deliver(now);
    metrics_.on_tokens(delivered, r.last_token, 1);
    r.generated += 1;
    r.last_token = delivered;
    if (r.first_token < 0) r.first_token = delivered;
    if (on_delivery_) on_delivery_(r, delivered);
    outstanding_tokens_ -= 1;
    ++rec.first_tokens;
    const std::int64_t reservation = reservation_of(r);
    kv_reserved_ += reservation - r.kv_reserved;
    r.kv_reserved = reservation;
    if (r.generated >= r.spec.output_tokens) finished_.push_back(slot);
  }
  metrics_.on_step(rec);
  for (std::uint32_t slot : finished_) complete(slot, now);
}

namespace {
constexpr std::size_t kCacheLine = 64;
void prefetch_lines(const void* start, std::size_t bytes) {
  const auto* p = static_cast<const char*>(start);
  for (std::size_t offset = 0; offset < bytes; offset += kCacheLine) {
    __builtin_prefetch(p + offset);
  }
}
}  // namespace

void Engine::prefetch_object() const {
  prefetch_lines(this, sizeof(*this));
}

void Engine::prefetch_step(EngineLane lane) const {
  const StepPlan& plan = plans_[static_cast<int>(lane)];
  if (!plan.active) return;
  const std::size_t decodes = plan.decodes;
  if (decodes != 0) {
    prefetch_lines(plan.verifications.data(), decodes * sizeof(Verification));
  }
  // The requests the step holds (a few: a fleet replica runs about one at a time).
  const std::size_t requests = std::min<std::size_t>(running_.size(), 4);
  prefetch_lines(running_.data(), requests * sizeof(std::uint32_t));
  for (std::size_t i = 0; i < requests; ++i) prefetch_lines(&slots_[running_[i]], sizeof(Request));
  metrics_.prefetch_step();
}

void Engine::report_step(const StepPlan& plan) {
  step_items_.clear();
  for (std::size_t i = 0; i < plan.decodes; ++i) {
    const Verification& v = plan.verifications[i];
    const Request& r = slots_[v.slot];
    step_items_.push_back(
        StepItem{r.id, r.context_tokens(), 1 + v.verified_drafts, v.commits, false});
  }
  for (const auto& [slot, chunk] : plan.prefill_chunks) {
    const Request& r = slots_[slot];
    step_items_.push_back(StepItem{r.id, r.prefilled, chunk, 0, true});
  }
  on_step_(plan.start, plan.end, step_items_);
}

void Engine::complete(std::uint32_t slot, SimTime now) {
  Request& r = slots_[slot];
  r.phase = RequestPhase::kDone;
  // Done for the client when its last chunk arrives (now, without a front end). The engine is done
  // with it now: the completion handler (a closed-loop user's next request) runs at `now`.
  r.done = r.last_token;
  kv_reserved_ -= r.kv_reserved;
  r.kv_reserved = 0;
  running_.erase(std::find(running_.begin(), running_.end(), slot));
  policy_.on_request_left(r.id);
  acceptance_.on_request_left(r.id);
  metrics_.on_request_done(r);
  if (on_complete_) on_complete_(r, now);
  free_slots_.push_back(slot);
}

}  // namespace sparksim
