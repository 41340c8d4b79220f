// Simulation: the event loop that drives one Engine with a Workload, and the result of a run.
// Requests get ids 0, 1, 2, ... in the order they arrive (ties: workload order), so ids and every
// output are a deterministic function of the inputs and the seed.
#pragma once

#include <cstdint>

#include "sim/engine.hpp"
#include "sim/workload.hpp"

namespace sparksim {

struct SimulationStats {
  std::int64_t requests_submitted = 0;
  std::int64_t requests_rejected_kv = 0;  // could never fit in KV (prompt + output + γ + 1 > cap)
  std::int64_t events = 0;
  SimTime end_time = 0;  // time of the last event, or of the last chunk streamed if later
};

// Runs until no event is left. The engine's completions feed back into the workload, then go to
// `observer` (if any): the simulation owns the engine's completion handler while it runs.
SimulationStats run_simulation(Engine& engine, Workload& workload,
                               const Engine::CompletionHandler& observer = {});

}  // namespace sparksim
