// InstantOrder: the one-thread cluster loop's order of completions, rebuilt from the logs of the
// windowed loop's replica groups (windowed_cluster_loop.cpp), so that requests.csv and everything
// built on the order of completions is the same at any thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/sim_time.hpp"
#include "sim/cluster/window_log.hpp"

namespace sparksim {

// Replicas are independent between router decisions, so each group runs its own replicas' steps
// in its own agenda; only the order in which requests complete reaches an output (requests.csv,
// the cluster's percentiles, placement.csv), and within one instant the one-thread loop orders
// step ends by the sequence numbers its single agenda gave them. That order is rebuilt here
// exactly: an event's place among the events of its kind at its instant follows from what pushed
// it (sim/event_queue.hpp's sequence is push order, and events are pushed while others are
// handled, in the agenda's order), so
//   - step ends at t are ordered by their step start (its time, then its place among the starts
//     at that time), then by lane (a start pushes the main lane's end first);
//   - step starts at t are ordered by what made the replica plan one: one of its own step ends at
//     t (by that end's place) before an arrival at t (by arrival order).
// A place is only needed where two replicas have events at one instant (a shared instant: two
// groups list it, or one group flags it); elsewhere a completion is alone at its instant or with
// its own replica's, in that replica's order, and the completions of the groups are merged by
// time. Steps take at least 1 ns (Engine::try_start_step), so an instant's step ends all come
// before its step starts.
class InstantOrder {
 public:
  explicit InstantOrder(std::size_t replicas);

  // Reads one window of every group's log and calls `emit(group, completed)` for every
  // completion (`completed`: the index into that group's completed requests) in the one-thread
  // loop's order.
  void merge(std::span<const WindowLog* const> logs,
             const std::function<void(std::size_t group, std::uint64_t completed)>& emit);

  // Instants at which two or more replicas had events (the ones that needed a sort): for tests
  // and the benchmark's curiosity.
  std::int64_t shared_instants() const { return shared_instants_; }

 private:
  // Places are only written at shared instants; a place whose time is not the one asked about is
  // 0 (its event was alone at its instant, so nothing at that instant is compared with it).
  struct ReplicaPlaces {
    SimTime start_time[2] = {-1, -1};  // per lane: a start at a shared instant
    std::uint32_t start_place[2] = {0, 0};
    SimTime end_time[2] = {-1, -1};  // per lane: a step end at a shared instant
    std::uint32_t end_place[2] = {0, 0};
  };
  struct Run {  // one group's entries at the instant
    std::size_t group, begin, end;
  };
  void find_shared_instants(std::span<const WindowLog* const> logs);
  void order_shared_instant(std::span<const WindowLog* const> logs, SimTime t,
                            const std::function<void(std::size_t, std::uint64_t)>& emit);

  std::vector<ReplicaPlaces> replicas_;
  std::vector<SimTime> shared_;  // this window's shared instants, increasing
  std::vector<std::size_t> heads_;
  std::vector<Run> runs_;
  struct Keyed {
    SimTime key_time;
    std::uint64_t key_place;
    std::uint32_t key_lane;
    std::size_t group, index;  // the entry in its group's log
  };
  std::vector<Keyed> scratch_;
  std::int64_t shared_instants_ = 0;
};

}  // namespace sparksim
