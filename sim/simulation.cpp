// The single-replica event loop. Arrivals known in advance are chained one at a time (the queue
// stays small whatever the trace length); closed-loop follow-ups are queued as they appear.
#include "sim/simulation.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "sim/event_queue.hpp"

namespace sparksim {

namespace {
// Arrival payloads: the pending spec's slot, tagged with whether it came from the chain of
// scheduled arrivals (whose successor must then be pulled).
constexpr std::uint64_t kScheduledTag = 1ULL << 63;
}  // namespace

SimulationStats run_simulation(Engine& engine, Workload& workload,
                               const Engine::CompletionHandler& observer) {
  SimulationStats stats;
  EventQueue queue;
  std::vector<RequestSpec> pending;  // specs of queued arrival events, slot-reused
  std::vector<std::uint64_t> free_pending;
  bool start_pending = false;
  std::uint64_t next_id = 0;

  auto queue_arrival = [&](const RequestSpec& spec, bool scheduled) {
    std::uint64_t slot;
    if (!free_pending.empty()) {
      slot = free_pending.back();
      free_pending.pop_back();
      pending[slot] = spec;
    } else {
      slot = pending.size();
      pending.push_back(spec);
    }
    queue.push(spec.arrival, EventKind::kArrival, slot | (scheduled ? kScheduledTag : 0));
  };
  auto pull_scheduled = [&] {
    if (auto spec = workload.next_scheduled()) queue_arrival(*spec, true);
  };

  engine.set_completion_handler([&](const Request& request, SimTime now) {
    if (auto follow_up = workload.on_completion(now)) queue_arrival(*follow_up, false);
    if (observer) observer(request, now);
  });

  pull_scheduled();
  const EngineLane lanes[] = {EngineLane::kMain, EngineLane::kPrefill};
  // The engine plans its steps at an instant after every other event at that instant (a step start
  // sorts last among same-time events). So the planned start is kept beside the queue, not in it:
  // it runs as soon as the next queued event is later, which saves a push and a pop per step.
  SimTime start_at = 0;
  for (;;) {
    if (start_pending && (queue.empty() || queue.next_time() > start_at)) {
      start_pending = false;
      ++stats.events;
      for (EngineLane lane : lanes) {
        if (auto end = engine.try_start_step(lane, start_at)) {
          queue.push(*end, EventKind::kStepEnd, static_cast<std::uint64_t>(lane));
        }
      }
      continue;  // a failed start changes nothing: only a later event may enable one
    }
    if (queue.empty()) break;
    const Event event = queue.pop();
    ++stats.events;
    stats.end_time = event.time;
    switch (event.kind) {
      case EventKind::kStepEnd:
        engine.finish_step(static_cast<EngineLane>(event.payload), event.time);
        break;
      case EventKind::kArrival: {
        const std::uint64_t slot = event.payload & ~kScheduledTag;
        ++stats.requests_submitted;
        if (!engine.submit(next_id++, pending[slot], event.time)) ++stats.requests_rejected_kv;
        free_pending.push_back(slot);
        if (event.payload & kScheduledTag) pull_scheduled();
        break;
      }
      case EventKind::kStepStart:
        throw std::logic_error("run_simulation: step starts are not queued");
    }
    // State changed at this instant: plan steps once every event at this time has been seen.
    if (!start_pending && !engine.idle()) {
      start_at = event.time;
      start_pending = true;
    }
  }
  // The run lasts until the client has its last chunk: the front end may stream it after the last
  // event (its busy time ends with the last chunk; 0 without a front end).
  stats.end_time = std::max(stats.end_time, engine.front_end().server().busy_until());
  return stats;
}

}  // namespace sparksim
