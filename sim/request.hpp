// Request: one request's state inside an engine and its lifecycle timestamps
// (arrival → [front-end intake] → queued → prefill → decode → done). Timestamps are -1 until
// reached.
#pragma once

#include <cstdint>

#include "common/sim_time.hpp"
#include "sim/acceptance/acceptance_model.hpp"
#include "traces/request_spec.hpp"

namespace sparksim {

enum class RequestPhase : std::uint8_t { kQueued, kPrefill, kDecode, kDone };

struct Request {
  std::uint64_t id = 0;
  RequestSpec spec;
  RequestPhase phase = RequestPhase::kQueued;

  // Client-side times: `arrival` is when the client sent it; first_token, last_token and done are
  // when the client received the chunk (the end of the step that produced it, plus the front
  // end's streaming: sim/front_end.hpp; without a front end the step's end).
  SimTime arrival = -1;
  SimTime first_admitted = -1;  // first time it got KV and started prefill
  SimTime first_token = -1;     // output token 1 received
  SimTime last_token = -1;      // the latest chunk received
  SimTime done = -1;            // the last chunk received

  std::int64_t generated = 0;         // output tokens committed
  std::int64_t prefill_needed = 0;    // tokens to (re)compute before decoding: prompt + generated
  std::int64_t prefilled = 0;         // of prefill_needed, done so far
  std::int64_t kv_reserved = 0;       // tokens this request holds in the KV budget
  std::int64_t decode_steps = 0;      // steps in which it verified (request-steps)
  std::int64_t decode_committed = 0;  // tokens committed by verification steps
  std::int64_t drafts_verified = 0;
  std::int64_t drafts_accepted = 0;
  std::int64_t prefill_tokens_computed = 0;  // includes recomputation after preemption
  std::int32_t preemptions = 0;
  bool in_flight = false;  // part of a step that has started and not finished
  // Its prompt's KV and first token were computed on another replica (disaggregated prefill):
  // admission goes straight to decode. Cleared by preemption (the KV is lost, recompute here).
  bool kv_resident = false;
  AcceptanceState acceptance_state{};

  // Tokens in the KV cache that the next verify attends to.
  std::int64_t context_tokens() const { return spec.prompt_tokens + generated; }
};

}  // namespace sparksim
