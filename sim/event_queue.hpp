// EventQueue: the discrete-event kernel's agenda. Events are ordered by
// (time, kind priority, insertion sequence): an explicit, tested total order, so two events at the
// same nanosecond always run in the same order and a run is reproducible byte for byte.
//
// Kind priorities encode causality within one instant: a step that ends at t frees KV and
// completes requests before arrivals at t are queued, and the engine plans its next step at t only
// after every arrival at t has been seen.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "common/sim_time.hpp"

namespace sparksim {

enum class EventKind : std::uint8_t {
  kStepEnd = 0,    // a step of some lane of some engine finishes
  kArrival = 1,    // a request reaches the server (trace row or closed-loop user)
  kStepStart = 2,  // an idle engine looks for work
};

struct Event {
  SimTime time = 0;
  EventKind kind = EventKind::kArrival;
  std::uint64_t sequence = 0;  // insertion order, assigned by the queue
  std::uint64_t payload = 0;   // meaning depends on kind (lane, request index, ...)
};

// True if a runs before b.
inline bool runs_before(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.kind != b.kind) return a.kind < b.kind;
  return a.sequence < b.sequence;
}

class EventQueue {
 public:
  // Schedules an event; `time` must not precede the last popped event (no time travel).
  // Inline (with pop), as both run once per simulated step.
  void push(SimTime time, EventKind kind, std::uint64_t payload) {
    if (time < now_) throw_past(time);
    heap_.push(Event{time, kind, next_sequence_++, payload});
  }
  // Removes and returns the next event. Precondition: !empty().
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    now_ = e.time;
    return e;
  }
  bool empty() const { return heap_.empty(); }
  // The time of the event pop() would return. Precondition: !empty().
  SimTime next_time() const { return heap_.top().time; }
  std::size_t size() const { return heap_.size(); }
  SimTime now() const { return now_; }

 private:
  [[noreturn]] void throw_past(SimTime time) const;
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return runs_before(b, a); }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::uint64_t next_sequence_ = 0;
  SimTime now_ = 0;
};

}  // namespace sparksim
