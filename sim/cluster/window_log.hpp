// WindowLog: what one replica group of the windowed cluster loop did in one window, for putting
// the window's completions in the one-thread loop's order (instant_order.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/sim_time.hpp"

namespace sparksim {

// One event a replica group handled, in the group's order (non-decreasing time).
struct GroupLogEntry {
  enum class What : std::uint8_t { kStepEnd, kStepStart, kCompletion };
  static constexpr std::uint8_t kArrivalTrigger = 2;  // kStepStart: an arrival made it plan

  SimTime time = 0;
  std::uint32_t replica = 0;
  What what = What::kStepEnd;
  std::uint8_t lanes = 0;    // kStepEnd: its lane; kStepStart: a bit per lane that started a step
  std::uint8_t trigger = 0;  // kStepStart: the lane of the replica's own end at this instant that
                             // made it plan, or kArrivalTrigger
  // kStepEnd: when its step started; kCompletion: index into the group's completed requests;
  // kStepStart with kArrivalTrigger: the arrival's number (arrival order at the router).
  std::uint64_t payload = 0;
};

// Besides every event (the detail, read only where two replicas share an instant), it keeps an
// index the main thread can afford to read for every window: the distinct instants, 8 bytes each,
// the instants at which two of the group's own replicas had events, and the completions. The
// thread that merges runs on another core than most groups, so each byte it reads of a group's
// log is a cache line moved between cores; reading the detail of every event cost a fifth of the
// loop's time at 1,000 replicas (sim/cluster/README.md).
class WindowLog {
 public:
  struct Completion {
    SimTime time;
    std::uint64_t completed;  // index into the group's completed requests
  };

  void clear() {
    entries_.clear();
    instant_times_.clear();
    instant_first_.clear();
    shared_instants_.clear();
    completions_.clear();
  }
  void add(const GroupLogEntry& e) {
    if (instant_times_.empty() || instant_times_.back() != e.time) {
      instant_times_.push_back(e.time);
      instant_first_.push_back(static_cast<std::uint32_t>(entries_.size()));
      instant_replica_ = e.replica;
    } else if (e.replica != instant_replica_ &&
               (shared_instants_.empty() || shared_instants_.back() != e.time)) {
      shared_instants_.push_back(e.time);
    }
    if (e.what == GroupLogEntry::What::kCompletion) {
      completions_.push_back(Completion{e.time, e.payload});
    }
    entries_.push_back(e);
  }

  const std::vector<GroupLogEntry>& entries() const { return entries_; }
  // Distinct instants, increasing; and where each one's entries begin in entries().
  const std::vector<SimTime>& instant_times() const { return instant_times_; }
  const std::vector<std::uint32_t>& instant_first() const { return instant_first_; }
  // Instants at which two or more of the group's replicas had events, increasing.
  const std::vector<SimTime>& shared_instants() const { return shared_instants_; }
  const std::vector<Completion>& completions() const { return completions_; }

 private:
  std::vector<GroupLogEntry> entries_;
  std::vector<SimTime> instant_times_;
  std::vector<std::uint32_t> instant_first_;
  std::vector<SimTime> shared_instants_;
  std::vector<Completion> completions_;
  std::uint32_t instant_replica_ = 0;  // the replica of the last instant's first entry
};

}  // namespace sparksim
