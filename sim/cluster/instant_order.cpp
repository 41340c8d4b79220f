// Rebuilds the one-thread loop's order of completions from the replica groups' logs (see the
// header for the rule and why it is the one-thread loop's).
#include "sim/cluster/instant_order.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

namespace sparksim {

InstantOrder::InstantOrder(std::size_t replicas) : replicas_(replicas) {}

void InstantOrder::merge(std::span<const WindowLog* const> logs,
                         const std::function<void(std::size_t, std::uint64_t)>& emit) {
  constexpr SimTime kNone = std::numeric_limits<SimTime>::max();
  find_shared_instants(logs);
  heads_.assign(logs.size(), 0);  // per group: its next completion
  std::size_t next_shared = 0;
  while (true) {
    SimTime completion_time = kNone;
    std::size_t group = 0;
    for (std::size_t g = 0; g < logs.size(); ++g) {
      const auto& completions = logs[g]->completions();
      if (heads_[g] < completions.size() && completions[heads_[g]].time < completion_time) {
        completion_time = completions[heads_[g]].time;
        group = g;
      }
    }
    const SimTime shared_time = next_shared < shared_.size() ? shared_[next_shared] : kNone;
    if (completion_time == kNone && shared_time == kNone) return;
    if (shared_time <= completion_time) {
      order_shared_instant(logs, shared_time, emit);
      for (std::size_t g = 0; g < logs.size(); ++g) {
        const auto& completions = logs[g]->completions();
        while (heads_[g] < completions.size() && completions[heads_[g]].time == shared_time) {
          ++heads_[g];
        }
      }
      ++next_shared;
      continue;
    }
    // Not shared: one group, one replica, in its own order.
    const auto& completions = logs[group]->completions();
    while (heads_[group] < completions.size() &&
           completions[heads_[group]].time == completion_time) {
      emit(group, completions[heads_[group]++].completed);
    }
  }
}

// Every group's own shared instants, and the instants two groups both list (a merge of sorted
// arrays without a data-dependent branch: most instants are in one group only).
void InstantOrder::find_shared_instants(std::span<const WindowLog* const> logs) {
  shared_.clear();
  for (const WindowLog* log : logs) {
    shared_.insert(shared_.end(), log->shared_instants().begin(), log->shared_instants().end());
  }
  for (std::size_t g = 0; g < logs.size(); ++g) {
    const std::vector<SimTime>& a = logs[g]->instant_times();
    for (std::size_t h = g + 1; h < logs.size(); ++h) {
      const std::vector<SimTime>& b = logs[h]->instant_times();
      std::size_t i = 0, j = 0;
      while (i < a.size() && j < b.size()) {
        const SimTime x = a[i], y = b[j];
        if (x == y) shared_.push_back(x);
        i += x <= y ? 1 : 0;
        j += y <= x ? 1 : 0;
      }
    }
  }
  if (shared_.size() > 1) {
    std::sort(shared_.begin(), shared_.end());
    shared_.erase(std::unique(shared_.begin(), shared_.end()), shared_.end());
  }
}

void InstantOrder::order_shared_instant(
    std::span<const WindowLog* const> logs, SimTime t,
    const std::function<void(std::size_t, std::uint64_t)>& emit) {
  runs_.clear();
  for (std::size_t g = 0; g < logs.size(); ++g) {
    const std::vector<SimTime>& times = logs[g]->instant_times();
    const auto it = std::lower_bound(times.begin(), times.end(), t);
    if (it == times.end() || *it != t) continue;
    const auto k = static_cast<std::size_t>(it - times.begin());
    const std::size_t end =
        k + 1 < times.size() ? logs[g]->instant_first()[k + 1] : logs[g]->entries().size();
    runs_.push_back(Run{g, logs[g]->instant_first()[k], end});
  }
  ++shared_instants_;
  const auto by_key = [](const Keyed& a, const Keyed& b) {
    return std::tie(a.key_time, a.key_place, a.key_lane) <
           std::tie(b.key_time, b.key_place, b.key_lane);
  };
  // Step ends: by the start that pushed them (its time is in the entry), then lane; each one's
  // completions follow it.
  scratch_.clear();
  for (const Run& run : runs_) {
    for (std::size_t i = run.begin; i < run.end; ++i) {
      const GroupLogEntry& e = logs[run.group]->entries()[i];
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
    const std::vector<GroupLogEntry>& log = logs[scratch_[place].group]->entries();
    const GroupLogEntry& end = log[scratch_[place].index];
    ReplicaPlaces& p = replicas_[end.replica];
    p.end_time[end.lanes & 1] = end.time;
    p.end_place[end.lanes & 1] = static_cast<std::uint32_t>(place);
    for (std::size_t j = scratch_[place].index + 1;
         j < log.size() && log[j].what == GroupLogEntry::What::kCompletion &&
         log[j].replica == end.replica && log[j].time == end.time;
         ++j) {
      emit(scratch_[place].group, log[j].payload);
    }
  }
  // Step starts: by what made the replica plan (its own end here before any arrival).
  scratch_.clear();
  for (const Run& run : runs_) {
    for (std::size_t i = run.begin; i < run.end; ++i) {
      const GroupLogEntry& e = logs[run.group]->entries()[i];
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
    const GroupLogEntry& start = logs[scratch_[place].group]->entries()[scratch_[place].index];
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
