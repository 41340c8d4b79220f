// EventQueue: a binary heap under the (time, kind, sequence) order.
#include "sim/event_queue.hpp"

#include <stdexcept>
#include <string>

namespace sparksim {

void EventQueue::throw_past(SimTime time) const {
  throw std::logic_error("event scheduled in the past: " + std::to_string(time) + " < " +
                         std::to_string(now_));
}

}  // namespace sparksim
