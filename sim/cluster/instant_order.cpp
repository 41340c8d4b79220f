// Rebuilds the one-thread loop's order of completions from the replica groups' logs (see the
// header for the rule and why it is the one-thread loop's).
#include "sim/cluster/instant_order.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

namespace sparksim {

InstantOrder::InstantOrder(std::size_t replicas) : replicas_(replicas) {}

void InstantOrder::merge(std::span<const std::vector<GroupLogEntry>* const> logs,
                         const std::function<void(std::size_t, const GroupLogEntry&)>& emit) {
  heads_.assign(logs.size(), 0);
  while (true) {
    // The earliest instant left, and whether another group has entries at it too.
    SimTime t = std::numeric_limits<SimTime>::max();
    std::size_t first = logs.size();
    bool groups_share = false;
    for (std::size_t g = 0; g < logs.size(); ++g) {
      if (heads_[g] == logs[g]->size()) continue;
      const SimTime tg = (*logs[g])[heads_[g]].time;
      if (tg < t) {
        t = tg;
        first = g;
        groups_share = false;
      } else if (tg == t) {
        groups_share = true;
      }
    }
    if (first == logs.size()) return;
    if (!groups_share) {
      // One group: pass its run through unless two of its replicas are in it.
      const std::vector<GroupLogEntry>& log = *logs[first];
      const std::size_t begin = heads_[first];
      const std::uint32_t replica = log[begin].replica;
      bool replicas_share = false;
      std::size_t end = begin;
      for (; end < log.size() && log[end].time == t; ++end) {
        replicas_share |= log[end].replica != replica;
      }
      if (!replicas_share) {
        for (std::size_t i = begin; i < end; ++i) {
          if (log[i].what == GroupLogEntry::What::kCompletion) emit(first, log[i]);
        }
        heads_[first] = end;
        continue;
      }
    }
    runs_.clear();
    for (std::size_t g = 0; g < logs.size(); ++g) {
      const std::vector<GroupLogEntry>& log = *logs[g];
      const std::size_t begin = heads_[g];
      std::size_t end = begin;
      while (end < log.size() && log[end].time == t) ++end;
      if (end > begin) runs_.push_back(Run{g, begin, end});
      heads_[g] = end;
    }
    order_shared_instant(logs, runs_, emit);
  }
}

void InstantOrder::order_shared_instant(
    std::span<const std::vector<GroupLogEntry>* const> logs, const std::vector<Run>& runs,
    const std::function<void(std::size_t, const GroupLogEntry&)>& emit) {
  ++shared_instants_;
  const auto by_key = [](const Keyed& a, const Keyed& b) {
    return std::tie(a.key_time, a.key_place, a.key_lane) <
           std::tie(b.key_time, b.key_place, b.key_lane);
  };
  // Step ends: by the start that pushed them (its time is in the entry), then lane; each one's
  // completions follow it.
  scratch_.clear();
  for (const Run& run : runs) {
    for (std::size_t i = run.begin; i < run.end; ++i) {
      const GroupLogEntry& e = (*logs[run.group])[i];
      if (e.what != GroupLogEntry::What::kStepEnd) continue;
      const int lane = e.lanes & 1;
      const ReplicaPlaces& p = replicas_[e.replica];
      const auto started = static_cast<SimTime>(e.payload);
      const std::uint32_t place = p.start_time[lane] == started ? p.start_place[lane] : 0;
      scratch_.push_back(Keyed{started, place, static_cast<std::uint32_t>(lane), run.group, i});
    }
  }
  std::sort(scratch_.begin(), scratch_.end(), by_key);
  for (std::size_t place = 0; place < scratch_.size(); ++place) {
    const std::vector<GroupLogEntry>& log = *logs[scratch_[place].group];
    const GroupLogEntry& end = log[scratch_[place].index];
    ReplicaPlaces& p = replicas_[end.replica];
    p.end_time[end.lanes & 1] = end.time;
    p.end_place[end.lanes & 1] = static_cast<std::uint32_t>(place);
    for (std::size_t j = scratch_[place].index + 1;
         j < log.size() && log[j].what == GroupLogEntry::What::kCompletion &&
         log[j].replica == end.replica && log[j].time == end.time;
         ++j) {
      emit(scratch_[place].group, log[j]);
    }
  }
  // Step starts: by what made the replica plan (its own end here before any arrival).
  scratch_.clear();
  for (const Run& run : runs) {
    for (std::size_t i = run.begin; i < run.end; ++i) {
      const GroupLogEntry& e = (*logs[run.group])[i];
      if (e.what != GroupLogEntry::What::kStepStart) continue;
      if (e.trigger == GroupLogEntry::kArrivalTrigger) {
        scratch_.push_back(Keyed{1, e.payload, 0, run.group, i});
      } else {
        const ReplicaPlaces& p = replicas_[e.replica];
        const int lane = e.trigger & 1;
        const std::uint32_t place = p.end_time[lane] == e.time ? p.end_place[lane] : 0;
        scratch_.push_back(Keyed{0, place, 0, run.group, i});
      }
    }
  }
  std::sort(scratch_.begin(), scratch_.end(), by_key);
  for (std::size_t place = 0; place < scratch_.size(); ++place) {
    const GroupLogEntry& start = (*logs[scratch_[place].group])[scratch_[place].index];
    ReplicaPlaces& p = replicas_[start.replica];
    for (int lane = 0; lane < 2; ++lane) {
      if (start.lanes & (1 << lane)) {
        p.start_time[lane] = start.time;
        p.start_place[lane] = static_cast<std::uint32_t>(place);
      }
    }
  }
}

}  // namespace sparksim
