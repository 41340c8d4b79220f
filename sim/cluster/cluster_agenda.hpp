// The cluster loop's agenda: sim/event_queue.hpp's order (time, kind, sequence) with a peek, and
// step starts (always planned at the current instant) kept in a FIFO beside the heap. Shared by the
// one-thread loop (cluster_simulation.cpp) and each replica group of the windowed loop
// (windowed_cluster_loop.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/event_queue.hpp"
#include "sim/metrics.hpp"  // EngineLane

namespace sparksim {

// A FIFO of events in one reused buffer (a deque allocates and frees a block every few events,
// each one a cold cache line).
class EventRing {
 public:
  bool empty() const { return size_ == 0; }
  const Event& front() const { return buffer_[head_]; }
  const Event& back() const { return buffer_[(head_ + size_ - 1) & (buffer_.size() - 1)]; }
  void push(const Event& e) {
    if (size_ == buffer_.size()) grow();
    buffer_[(head_ + size_) & (buffer_.size() - 1)] = e;
    ++size_;
  }
  void pop() {
    head_ = (head_ + 1) & (buffer_.size() - 1);
    --size_;
  }

 private:
  void grow() {
    std::vector<Event> larger(std::max<std::size_t>(16, 2 * buffer_.size()));
    for (std::size_t i = 0; i < size_; ++i) larger[i] = buffer_[(head_ + i) & (buffer_.size() - 1)];
    buffer_ = std::move(larger);
    head_ = 0;
  }
  std::vector<Event> buffer_;  // a power of two long
  std::size_t head_ = 0, size_ = 0;
};

// EventQueue's order (sim/event_queue.hpp) with a peek: the loop must know the next event's time
// to let in-flight transfers land before it. Step starts are always planned at the current instant
// (the loop's clock never goes back), so in push order they are already in the agenda's order:
// they wait in a FIFO beside the heap, and the next event is the earlier of the two fronts. That
// halves the heap's work per step (a step is one start and one end) without changing the order.
class Agenda {
 public:
  void push(SimTime time, EventKind kind, std::uint64_t payload) {
    const Event event{time, kind, next_sequence_++, payload};
    if (kind == EventKind::kStepStart && (starts_.empty() || starts_.back().time <= time)) {
      starts_.push(event);
    } else {
      push_heap(event);
    }
  }
  const Event& top() const {
    if (starts_.empty()) return heap_.front();
    if (heap_.empty() || runs_before(starts_.front(), heap_.front())) return starts_.front();
    return heap_.front();
  }
  Event pop() {
    Event e;
    if (!starts_.empty() && (heap_.empty() || runs_before(starts_.front(), heap_.front()))) {
      e = starts_.front();
      starts_.pop();
    } else {
      e = heap_.front();
      std::pop_heap(heap_.begin(), heap_.end(), Later{});
      heap_.pop_back();
    }
    return e;
  }
  bool empty() const { return heap_.empty() && starts_.empty(); }
  // No event at or before `time`.
  bool nothing_due_by(SimTime time) const {
    return starts_.empty() && (heap_.empty() || heap_.front().time > time);
  }
  // Uses up the sequence number an event pushed now would take (the loop ran that event at
  // once instead), so every later event is numbered as if it had been pushed.
  void skip_sequence() { ++next_sequence_; }
  // The heap's next event and the one after it (null when absent), for cache hints: the loop
  // warms the replicas whose steps end next. An event pushed meanwhile may run before them, so a
  // hint can be wasted, never wrong.
  const Event* heap_next() const { return heap_.empty() ? nullptr : &heap_.front(); }
  const Event* heap_after_next() const {
    if (heap_.size() < 2) return nullptr;
    if (heap_.size() == 2 || runs_before(heap_[1], heap_[2])) return &heap_[1];
    return &heap_[2];
  }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return runs_before(b, a); }
  };
  void push_heap(const Event& e) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }
  // A binary heap under Later (what std::priority_queue keeps, but its second level readable).
  std::vector<Event> heap_;
  EventRing starts_;  // step starts, in push order (= agenda order, see above)
  std::uint64_t next_sequence_ = 0;
};

// Cache hints, given while a step end is handled: a thousand replicas' state does not stay in
// cache between their steps, and the next step ends are known. The replica after next gets its
// engine object fetched; the next one (whose object the previous hint fetched) what its step's
// end and the following start read through that object. Prefetches only: nothing changes, and a
// hint that a later push overtakes is wasted, never wrong. `engine_of(payload >> 1)` is the
// engine of a step-end event's replica.
template <typename EngineOf>
void warm_next_step_ends(const Agenda& agenda, EngineOf engine_of) {
  if (const Event* e = agenda.heap_after_next(); e && e->kind == EventKind::kStepEnd) {
    engine_of(e->payload >> 1)->prefetch_object();
  }
  if (const Event* e = agenda.heap_next(); e && e->kind == EventKind::kStepEnd) {
    engine_of(e->payload >> 1)->prefetch_step(static_cast<EngineLane>(e->payload & 1));
  }
}

}  // namespace sparksim
