// The windowed cluster loop (see the header): replica groups run the steps between two arrivals
// side by side; the main thread routes each arrival; the completions are ordered and handed to
// the observer during the next window, by whichever thread is free.
#include "sim/cluster/windowed_cluster_loop.hpp"

#include <algorithm>
#include <exception>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>

#include "sim/cluster/cluster_agenda.hpp"
#include "sim/cluster/engine_load.hpp"
#include "sim/cluster/instant_order.hpp"
#include "sim/cluster/load_tournament.hpp"
#include "sim/cluster/window_gate.hpp"
#include "sim/cluster/window_log.hpp"

namespace sparksim {

bool windowed_cluster_applies(const ClusterWiring& wiring, const Workload& workload) {
  if (wiring.replicas.size() < 2 || wiring.transport || workload.completions_make_requests()) {
    return false;
  }
  return std::all_of(wiring.replicas.begin(), wiring.replicas.end(),
                     [](const ClusterReplica& r) { return r.role == ReplicaRole::kColocated; });
}

namespace {

constexpr SimTime kNoBound = std::numeric_limits<SimTime>::max();

// A start event's payload: the replica's index in its group, shifted, and what made it plan.
constexpr std::uint64_t kTriggerBits = 2;

// A request done for good, as the observer is to be told.
struct Completed {
  Request request;
  std::size_t replica;
  SimTime time;
};

// Replicas r with r mod groups == index: their engines, their agenda and what the loop keeps per
// replica, all touched by one thread only while a window runs (the main thread reads and writes
// them between windows, when no thread runs a window).
class ReplicaGroup {
 public:
  ReplicaGroup(std::size_t index, std::size_t stride) : index_(index), stride_(stride) {}

  // After the last add(): with a preference router, the group keeps its replicas' loads in its
  // own tournament, updated at the end of each window on this group's thread; the main thread then
  // only compares the groups' winners. Otherwise it hands the main thread the changed loads.
  void keep_loads(LoadPreference prefers) {
    loads_.clear();
    for (std::size_t local = 0; local < engines_.size(); ++local)
      loads_.push_back(engine_load(*engines_[local]));
    if (prefers) tournament_ = std::make_unique<LoadTournament>(prefers, loads_);
  }

  void add(Engine* engine) {
    const std::size_t local = engines_.size();
    engines_.push_back(engine);
    end_time_.push_back(0);
    start_pending_.push_back(0);
    load_stale_.push_back(0);
    submitted_.push_back(0);
    rejected_.push_back(0);
    arrival_.push_back(0);
    engine->set_completion_handler([this, local](const Request& request, SimTime now) {
      log_[buffer_].add(GroupLogEntry{now, static_cast<std::uint32_t>(global(local)),
                                      GroupLogEntry::What::kCompletion, 0, 0,
                                      completed_[buffer_].size()});
      completed_[buffer_].push_back(Completed{request, global(local), now});
    });
  }

  // Between windows (main thread): the router sent arrival number `arrival` to the replica at
  // `local`. It is submitted when the next window opens, by the thread that runs this group: the
  // engine's lines then stay on that thread's core.
  void route_arrival(std::size_t local, std::uint64_t arrival, const RequestSpec& spec) {
    routed_.push_back(Routed{local, arrival, spec});
  }

  // Submits the routed arrivals, runs every event before `bound` and the step ends at `bound`
  // (they come before an arrival there; the starts at `bound` come after it), and takes the loads
  // of the replicas it touched for the router. Logs what the main thread orders afterwards.
  // The window's log and completions go to `buffer` (0 or 1; windows alternate, so the previous
  // window's stay readable while this one runs).
  void advance(SimTime bound, std::size_t buffer) {
    buffer_ = buffer;
    log_[buffer_].clear();
    completed_[buffer_].clear();
    for (const Routed& a : routed_) {
      at_ = Place{a.spec.arrival, EventKind::kArrival};
      submit(a);
    }
    routed_.clear();
    while (has_due_event(bound)) {
      const Event e = agenda_.pop();
      at_ = Place{e.time, e.kind};
      ++events_;
      last_event_ = e.time;
      if (e.kind == EventKind::kStepStart) {
        start_steps(e.payload >> kTriggerBits, e.time,
                    static_cast<std::uint8_t>(e.payload & ((1U << kTriggerBits) - 1)));
        continue;
      }
      const std::size_t local = e.payload >> 1;
      const auto lane = static_cast<std::uint8_t>(e.payload & 1);
      warm_next_step_ends(agenda_, [this](std::uint64_t l) { return engines_[l]; });
      end_time_[local] = e.time;
      log_[buffer_].add(GroupLogEntry{
          e.time, static_cast<std::uint32_t>(global(local)), GroupLogEntry::What::kStepEnd, lane, 0,
          static_cast<std::uint64_t>(engines_[local]->step_start(static_cast<EngineLane>(lane)))});
      engines_[local]->finish_step(static_cast<EngineLane>(lane), e.time);
      mark_stale(local);
      if (start_pending_[local] || engines_[local]->idle()) continue;
      if (e.time < bound && agenda_.nothing_due_by(e.time)) {
        // The start would be this group's next event: run it now (counted as an event, as the
        // one-thread loop counts it).
        ++events_;
        at_.kind = EventKind::kStepStart;
        start_steps(local, e.time, lane);
      } else {
        agenda_.push(e.time, EventKind::kStepStart, (local << kTriggerBits) | lane);
        start_pending_[local] = 1;
      }
    }
    fresh_loads_.clear();
    for (const std::size_t local : stale_) {
      load_stale_[local] = 0;
      loads_[local] = engine_load(*engines_[local]);
      if (!tournament_) fresh_loads_.emplace_back(global(local), loads_[local]);
    }
    if (tournament_) {
      // Past a quarter of the group, replaying every match is cheaper than a path per replica.
      if (stale_.size() * 4 > loads_.size()) {
        tournament_->rebuild();
      } else {
        for (const std::size_t local : stale_) tournament_->update(local);
      }
    }
    stale_.clear();
  }

  // Whether the next window has work for this group.
  bool has_due(SimTime bound) const { return !routed_.empty() || has_due_event(bound); }

  std::size_t global(std::size_t local) const { return local * stride_ + index_; }
  const WindowLog& log(std::size_t buffer) const { return log_[buffer]; }
  const Completed& completed(std::size_t buffer, std::size_t i) const {
    return completed_[buffer][i];
  }
  // Without a tournament: the loads of the replicas the last window touched (global index,
  // load), for the main thread's snapshot.
  const std::vector<std::pair<std::size_t, ReplicaLoad>>& fresh_loads() const {
    return fresh_loads_;
  }
  // With one: the group's most preferred replica (ties to the lowest index) and its load.
  std::size_t winner() const { return global(tournament_->winner()); }
  const ReplicaLoad& winner_load() const { return loads_[tournament_->winner()]; }
  std::int64_t events() const { return events_; }
  SimTime last_event() const { return last_event_; }
  SimTime end_time(std::size_t local) const { return end_time_[local]; }
  std::int64_t submitted(std::size_t local) const { return submitted_[local]; }
  std::int64_t rejected(std::size_t local) const { return rejected_[local]; }
  std::exception_ptr& error() { return error_; }
  // Where the group was when it threw: the event's time and kind.
  struct Place {
    SimTime time = 0;
    EventKind kind = EventKind::kStepEnd;
  };
  Place failed_at() const { return at_; }

 private:
  struct Routed {
    std::size_t local;
    std::uint64_t arrival;
    RequestSpec spec;
  };

  bool has_due_event(SimTime bound) const {
    if (agenda_.empty()) return false;
    const Event& top = agenda_.top();
    return top.time < bound || (top.time == bound && top.kind == EventKind::kStepEnd);
  }

  // As ClusterLoop::submit and the arrival's "plan a step once every event at this instant has
  // been seen" (cluster_simulation.cpp). The arrival's number is the request id.
  void submit(const Routed& a) {
    const SimTime now = a.spec.arrival;
    end_time_[a.local] = now;
    ++submitted_[a.local];
    mark_stale(a.local);
    if (!engines_[a.local]->submit(a.arrival, a.spec, now)) ++rejected_[a.local];
    if (start_pending_[a.local] || engines_[a.local]->idle()) return;
    agenda_.push(now, EventKind::kStepStart,
                 (a.local << kTriggerBits) | GroupLogEntry::kArrivalTrigger);
    start_pending_[a.local] = 1;
    arrival_[a.local] = a.arrival;
  }

  void start_steps(std::size_t local, SimTime time, std::uint8_t trigger) {
    end_time_[local] = time;
    start_pending_[local] = 0;
    mark_stale(local);
    std::uint8_t lanes = 0;
    for (EngineLane lane : {EngineLane::kMain, EngineLane::kPrefill}) {
      if (auto end = engines_[local]->try_start_step(lane, time)) {
        agenda_.push(*end, EventKind::kStepEnd, (local << 1) | static_cast<std::uint64_t>(lane));
        lanes |= static_cast<std::uint8_t>(1U << static_cast<unsigned>(lane));
      }
    }
    if (lanes != 0) {
      log_[buffer_].add(GroupLogEntry{
          time, static_cast<std::uint32_t>(global(local)), GroupLogEntry::What::kStepStart, lanes,
          trigger, trigger == GroupLogEntry::kArrivalTrigger ? arrival_[local] : 0});
    }
  }

  void mark_stale(std::size_t local) {
    if (load_stale_[local]) return;
    load_stale_[local] = 1;
    stale_.push_back(local);
  }

  const std::size_t index_, stride_;
  std::vector<Engine*> engines_;
  Agenda agenda_;
  // Per replica of the group (local index):
  std::vector<SimTime> end_time_;  // ReplicaStats::end_time
  std::vector<std::uint8_t> start_pending_, load_stale_;
  std::vector<std::int64_t> submitted_, rejected_;  // ReplicaStats' counts
  std::vector<std::uint64_t> arrival_;  // the arrival that made its pending start, if one did
  std::vector<std::size_t> stale_;      // local indices whose load changed this window
  std::vector<Routed> routed_;          // arrivals to submit when the next window opens
  std::vector<ReplicaLoad> loads_;      // per replica, as of the last window's end
  std::unique_ptr<LoadTournament> tournament_;
  std::vector<std::pair<std::size_t, ReplicaLoad>> fresh_loads_;
  // Per buffer: a window's events in this group's order, and its completions as they completed.
  WindowLog log_[2];
  std::vector<Completed> completed_[2];
  std::size_t buffer_ = 0;
  std::int64_t events_ = 0;
  SimTime last_event_ = 0;
  std::exception_ptr error_;
  Place at_;  // the event being handled
};

class WindowedClusterLoop {
 public:
  WindowedClusterLoop(const ClusterWiring& wiring, Workload& workload,
                      const ClusterCompletion& observer, std::size_t groups, std::size_t threads)
      : w_(wiring), workload_(workload), observer_(observer), order_(wiring.replicas.size()) {
    const std::size_t n = w_.replicas.size();
    if (!windowed_cluster_applies(w_, workload_)) {
      throw std::invalid_argument("the windowed loop runs colocated open-loop clusters only");
    }
    if (!w_.arrival_router) throw std::invalid_argument("a cluster needs a router");
    const std::size_t g = std::clamp<std::size_t>(groups, 1, n);
    threads_ = std::clamp<std::size_t>(threads, 1, g);
    for (std::size_t i = 0; i < g; ++i) groups_.push_back(std::make_unique<ReplicaGroup>(i, g));
    for (const ClusterReplica& replica : w_.replicas) {
      if (!replica.engine) throw std::invalid_argument("replica without an engine");
    }
    for (std::size_t r = 0; r < n; ++r) {
      Engine* e = w_.replicas[r].engine;
      e->batch_itl_adds();
      groups_[r % g]->add(e);
    }
    stats_.replicas.resize(n);
    prefers_ = w_.arrival_router->preference();
    for (const auto& group : groups_) group->keep_loads(prefers_);
    loads_.resize(n);
    for (std::size_t r = 0; r < n; ++r) loads_[r] = engine_load(*w_.replicas[r].engine);
  }

  ClusterStats run() {
    // One task per group, and one that hands the previous window's completions to the observer
    // (no output of a window feeds the simulation back, so that can wait a window).
    const std::size_t merge_task = groups_.size();
    WindowGate gate(groups_.size() + 1, threads_);
    std::vector<std::thread> workers;
    // However the loop ends (an exception included), the workers are told to return and joined.
    struct Joiner {
      WindowGate& gate;
      std::vector<std::thread>& workers;
      ~Joiner() {
        gate.close();
        for (std::thread& t : workers) t.join();
      }
    } joiner{gate, workers};
    for (std::size_t i = 1; i < threads_; ++i) {
      workers.emplace_back([this, &gate, i, merge_task] {
        pthread_setname_np(pthread_self(), "window-worker");
        for (std::uint64_t round = 0; (round = gate.wait_open(round)) != 0;) {
          if (gate.claim(i, round)) run_group(gate, i);
          if (gate.claim(merge_task, round)) run_merge(gate);  // (if no thread has yet)
        }
      });
    }

    std::optional<RequestSpec> next = workload_.next_scheduled();
    while (true) {
      run_window(gate, next ? next->arrival : kNoBound);
      if (!next) break;
      arrive(*next);
      next = workload_.next_scheduled();
    }
    merge_window(window_ - 1);
    return finish();
  }

 private:
  void run_group(WindowGate& gate, std::size_t g) {
    ReplicaGroup& group = *groups_[g];
    try {
      group.advance(gate.bound(), window_ % 2);
    } catch (...) {
      group.error() = std::current_exception();
    }
    gate.finish();
  }
  void run_merge(WindowGate& gate) {
    try {
      if (window_ > 0) merge_window(window_ - 1);
    } catch (...) {
      merge_error_ = std::current_exception();
    }
    gate.finish();
  }

  // Window `window`'s completions to the observer, in the one-thread loop's order (those up to
  // `last` only).
  void merge_window(std::uint64_t window, SimTime last = kNoBound) {
    const std::size_t buffer = window % 2;
    merge_logs_.clear();
    for (const auto& group : groups_) merge_logs_.push_back(&group->log(buffer));
    order_.merge(merge_logs_, [this, buffer, last](std::size_t group, std::uint64_t completed) {
      const Completed& c = groups_[group]->completed(buffer, completed);
      if (observer_ && c.time <= last) observer_(c.request, c.replica, c.time);
    });
  }

  // One window: every group runs its events up to `bound`, and the previous window's completions
  // go to the observer; side by side when two or more groups have something due (a window with
  // one busy group is not worth waking a thread for).
  void run_window(WindowGate& gate, SimTime bound) {
    std::size_t due = 0;
    for (const auto& group : groups_) due += group->has_due(bound) ? 1 : 0;
    if (due >= 2) {
      gate.open(bound);
      const std::uint64_t round = gate.round();
      if (gate.claim(0, round)) run_group(gate, 0);
      gate.give_workers_a_chance(round);
      for (std::size_t g = 1; g <= groups_.size(); ++g) {
        if (!gate.claim(g, round)) continue;
        if (g < groups_.size()) {
          run_group(gate, g);
        } else {
          run_merge(gate);
        }
      }
      gate.wait_finished();
    } else {
      try {
        if (window_ > 0) merge_window(window_ - 1);
      } catch (...) {
        merge_error_ = std::current_exception();
      }
      for (const auto& group : groups_) {
        try {
          group->advance(bound, window_ % 2);  // (clears the log of a group with nothing due)
        } catch (...) {
          group->error() = std::current_exception();
        }
      }
    }
    ++window_;
    if (merge_error_) std::rethrow_exception(merge_error_);  // a completion of an earlier window
    rethrow_first_error();
  }

  // The one-thread loop stops at the first event that throws, after telling the observer of every
  // completion before it. Each group stopped at its own first; the earliest one in time is the
  // one-thread loop's (at one instant, step ends come before arrivals and starts; between groups
  // at one instant and kind, the lower group is taken, an approximation). This window's
  // completions before it go to the observer, all those at its instant too when it is not a step
  // end (every end at an instant comes first); completions at the instant of a failing step end
  // are not handed on.
  void rethrow_first_error() {
    ReplicaGroup* first = nullptr;
    for (const auto& group : groups_) {
      if (!group->error()) continue;
      const ReplicaGroup::Place at = group->failed_at();
      if (!first || at.time < first->failed_at().time ||
          (at.time == first->failed_at().time && at.kind < first->failed_at().kind)) {
        first = group.get();
      }
    }
    if (!first) return;
    const ReplicaGroup::Place at = first->failed_at();
    const SimTime last = at.kind == EventKind::kStepEnd ? at.time - 1 : at.time;
    merge_window(window_ - 1, last);
    std::rethrow_exception(first->error());
  }

  // As ClusterLoop::pick. A preference router's choice, the most preferred replica with ties to
  // the lowest index, is the best of the groups' winners (compared the same way); any other
  // router gets the snapshot, refreshed with the loads the last window changed.
  std::size_t pick(const RequestSpec& spec) {
    if (prefers_) {
      std::size_t best = groups_[0]->winner();
      const ReplicaLoad* best_load = &groups_[0]->winner_load();
      for (std::size_t g = 1; g < groups_.size(); ++g) {
        const std::size_t candidate = groups_[g]->winner();
        const ReplicaLoad& load = groups_[g]->winner_load();
        if (prefers_(load, *best_load) || (!prefers_(*best_load, load) && candidate < best)) {
          best = candidate;
          best_load = &load;
        }
      }
      return best;
    }
    for (const auto& group : groups_) {
      for (const auto& [r, load] : group->fresh_loads()) loads_[r] = load;
    }
    const std::size_t choice = w_.arrival_router->route(spec, loads_);
    if (choice >= loads_.size()) {
      throw std::logic_error("router chose replica " + std::to_string(choice) + " of " +
                             std::to_string(loads_.size()));
    }
    return choice;
  }

  // The arrival at the window's end: routed with every step end at or before it applied, as in
  // ClusterLoop::on_arrival_kind; the replica's group submits it when the next window opens.
  void arrive(const RequestSpec& spec) {
    ++arrival_events_;
    last_arrival_ = spec.arrival;
    const std::uint64_t id = next_id_++;
    ++stats_.requests_submitted;
    const std::size_t r = pick(spec);
    groups_[r % groups_.size()]->route_arrival(r / groups_.size(), id, spec);
  }

  ClusterStats finish() {
    stats_.events = arrival_events_;
    stats_.end_time = last_arrival_;
    for (const auto& group : groups_) {
      stats_.events += group->events();
      stats_.end_time = std::max(stats_.end_time, group->last_event());
    }
    // As run_simulation: a replica's front end may stream its last chunk after its last event.
    for (std::size_t r = 0; r < w_.replicas.size(); ++r) {
      const ReplicaGroup& group = *groups_[r % groups_.size()];
      const std::size_t local = r / groups_.size();
      ReplicaStats& rs = stats_.replicas[r];
      rs.requests_submitted = group.submitted(local);
      rs.requests_rejected_kv = group.rejected(local);
      stats_.requests_rejected_kv += rs.requests_rejected_kv;
      const SimTime streamed = w_.replicas[r].engine->front_end().server().busy_until();
      rs.end_time = std::max(group.end_time(local), streamed);
      stats_.end_time = std::max(stats_.end_time, streamed);
    }
    return std::move(stats_);
  }

  const ClusterWiring& w_;
  Workload& workload_;
  const ClusterCompletion& observer_;
  std::vector<std::unique_ptr<ReplicaGroup>> groups_;
  std::size_t threads_ = 1;
  std::vector<const WindowLog*> merge_logs_;
  std::uint64_t window_ = 0;  // windows run so far; window w logs to buffer w % 2
  std::exception_ptr merge_error_;
  InstantOrder order_;
  LoadPreference prefers_ = nullptr;
  std::vector<ReplicaLoad> loads_;  // without a preference: the router's snapshot
  ClusterStats stats_;
  std::uint64_t next_id_ = 0;
  std::int64_t arrival_events_ = 0;
  SimTime last_arrival_ = 0;
};

}  // namespace

ClusterStats run_windowed_cluster(const ClusterWiring& wiring, Workload& workload,
                                  const ClusterCompletion& observer, std::size_t groups,
                                  std::size_t threads) {
  WindowedClusterLoop loop(wiring, workload, observer, groups, threads);
  return loop.run();
}

}  // namespace sparksim
