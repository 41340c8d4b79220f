// EventQueue: a binary heap under the (time, kind, sequence) order.
#include "sim/event_queue.hpp"

#include <stdexcept>
#include <string>

namespace sparksim {

void EventQueue::push(SimTime time, EventKind kind, std::uint64_t payload) {
  if (time < now_) {
    throw std::logic_error("event scheduled in the past: " + std::to_string(time) + " < " +
                           std::to_string(now_));
  }
  heap_.push(Event{time, kind, next_sequence_++, payload});
}

Event EventQueue::pop() {
  Event e = heap_.top();
  heap_.pop();
  now_ = e.time;
  return e;
}

}  // namespace sparksim
