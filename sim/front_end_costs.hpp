// FrontEndCosts: what a serving engine's API server costs each request and each streamed chunk, on
// top of the GPU's steps. They belong to an engine version (sim/engine_preset.cpp holds the fitted
// values and the cases they came from) and act through FrontEnd (sim/front_end.hpp): every command
// that simulates an engine with a preset pays them, so run, cluster, plan and validate agree.
// All zero (the default) = no front end: requests reach the scheduler as they arrive and every
// token reaches the client as its step ends.
#pragma once

#include <string>

namespace sparksim {

struct FrontEndCosts {
  // Latency before the scheduler sees a request that occupies no shared worker (the client's
  // connection, what other processes do for it): TTFT and E2E grow, throughput does not.
  double latency_ms = 0;
  // The API server as one serial worker (vLLM's is one Python process with one event loop):
  // its busy time per intake batch (the requests handed in at one instant, taken in together:
  // waking the loop, scheduling their handlers) ...
  double intake_batch_ms = 0;
  // ... per request in it (HTTP parsing, the chat template, building the engine request) ...
  double intake_request_ms = 0;
  // ... per prompt token (tokenising the prompt) ...
  double intake_prompt_token_us = 0;
  // ... and per output chunk streamed (detokenising, building and writing the SSE event).
  double chunk_us = 0;

  bool any() const {
    return latency_ms > 0 || intake_batch_ms > 0 || intake_request_ms > 0 ||
           intake_prompt_token_us > 0 || chunk_us > 0;
  }
  bool operator==(const FrontEndCosts&) const = default;
};

// Bounds every stored value must keep (the profile format's, where these terms lived before):
// latency [0, 1e5] ms; intake batch and request [0, 1e4] ms; prompt token [0, 1e3] us (a
// tokeniser takes well under a microsecond a token); chunk [0, 1e6] us.
inline constexpr double kMaxFrontEndLatencyMs = 1e5;
inline constexpr double kMaxFrontEndIntakeMs = 1e4;
inline constexpr double kMaxFrontEndPromptTokenUs = 1e3;
inline constexpr double kMaxFrontEndChunkUs = 1e6;

// "" when every term is finite and within its bound; otherwise one line naming each term that is
// not ("intake_request_ms = -1 is outside [0, 10000]; ...").
std::string front_end_costs_out_of_bounds(const FrontEndCosts& costs);

}  // namespace sparksim
