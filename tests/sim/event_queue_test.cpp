// Event order: (time, kind priority, insertion sequence), and no scheduling into the past.
#include "sim/event_queue.hpp"

#include <catch2/catch.hpp>

using namespace sparksim;

TEST_CASE("events pop by time, then kind priority, then insertion order") {
  EventQueue q;
  q.push(20, EventKind::kArrival, 1);
  q.push(10, EventKind::kStepStart, 2);
  q.push(10, EventKind::kArrival, 3);
  q.push(10, EventKind::kStepEnd, 4);
  q.push(10, EventKind::kArrival, 5);
  q.push(5, EventKind::kStepStart, 6);
  std::vector<std::uint64_t> order;
  std::vector<SimTime> announced;  // next_time() before each pop: the popped event's time
  while (!q.empty()) {
    announced.push_back(q.next_time());
    const Event e = q.pop();
    CHECK(e.time == announced.back());
    order.push_back(e.payload);
  }
  CHECK(order == std::vector<std::uint64_t>{6, 4, 3, 5, 2, 1});
  CHECK(announced == std::vector<SimTime>{5, 10, 10, 10, 10, 20});
}

TEST_CASE("step ends precede arrivals precede step starts at the same instant") {
  CHECK(EventKind::kStepEnd < EventKind::kArrival);
  CHECK(EventKind::kArrival < EventKind::kStepStart);
  const Event end{7, EventKind::kStepEnd, 9, 0};
  const Event arrival{7, EventKind::kArrival, 1, 0};
  CHECK(runs_before(end, arrival));
  CHECK_FALSE(runs_before(arrival, end));
  CHECK(runs_before(Event{6, EventKind::kStepStart, 100, 0}, end));
}

TEST_CASE("an event cannot be scheduled before the current time") {
  EventQueue q;
  q.push(100, EventKind::kArrival, 0);
  q.pop();
  CHECK(q.now() == 100);
  CHECK_THROWS_AS(q.push(99, EventKind::kArrival, 0), std::logic_error);
  q.push(100, EventKind::kArrival, 0);  // the same instant is fine
  CHECK(q.size() == 1);
}
