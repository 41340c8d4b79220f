// FrontEnd: one replica's API server in the simulation, FrontEndCosts acting on a FrontEndServer.
// The engine hands it every request it is sent (take_in: when the scheduler may see it) and every
// chunk of tokens a step produces for a request (deliver: when the client receives it); the
// client-visible times (TTFT, TPOT, ITL, E2E) are the delivery times. Requests handed in at one
// instant with nothing served between them are one intake batch; chunks and intakes share the one
// worker in the order they are handed in (the simulation's event order), so a request being taken
// in holds back the chunks of the requests streaming meanwhile, and streaming holds back intake.
// With all costs zero (inactive) nothing is delayed and the engine does not call it.
#pragma once

#include <cstdint>

#include "common/sim_time.hpp"
#include "sim/front_end_costs.hpp"
#include "sim/front_end_server.hpp"

namespace sparksim {

class FrontEnd {
 public:
  explicit FrontEnd(const FrontEndCosts& costs);
  bool active() const { return active_; }

  struct Intake {
    SimTime ready = 0;    // when the scheduler sees it: its batch's end + latency
    bool joined = false;  // it joined the previous request's batch, which now ends at `ready` too
  };
  // A request with `prompt_tokens` handed in at `now` (non-decreasing across calls).
  Intake take_in(SimTime now, std::int64_t prompt_tokens);
  // When a chunk a step ending at `step_end` produced reaches the client.
  SimTime deliver(SimTime step_end) { return server_.serve(step_end, chunk_); }
  const FrontEndServer& server() const { return server_; }

 private:
  bool active_;
  SimTime latency_, batch_, request_, chunk_;
  double prompt_token_ns_;
  FrontEndServer server_;
};

}  // namespace sparksim
