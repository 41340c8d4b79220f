// The cluster event loop: arrivals → router → replica engines; prefill completions → router →
// KV transfer → decode engines. Event kinds and tie rules are those of sim/event_queue.hpp.
#include "sim/cluster/cluster_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/cluster/cluster_agenda.hpp"
#include "sim/cluster/engine_load.hpp"
#include "sim/cluster/load_tournament.hpp"
#include "sim/cluster/windowed_cluster_loop.hpp"
#include "sim/event_queue.hpp"

namespace sparksim {

const char* replica_role_name(ReplicaRole role) {
  switch (role) {
    case ReplicaRole::kColocated:
      return "colocated";
    case ReplicaRole::kPrefill:
      return "prefill";
    case ReplicaRole::kDecode:
      return "decode";
  }
  return "?";
}

namespace {

// Arrival-kind payloads: a tag and an index. An arrival from the workload's scheduled chain (whose
// successor must then be pulled), a follow-up arrival (no tag), a finished prefill to route, a
// KV transfer that landed.
constexpr std::uint64_t kScheduledTag = 1ULL << 63;
constexpr std::uint64_t kHandoffTag = 1ULL << 62;
constexpr std::uint64_t kLandingTag = 1ULL << 61;
constexpr std::uint64_t kTagMask = kScheduledTag | kHandoffTag | kLandingTag;

// A pool the router picks from (the entry pool or the decode pool): the replicas' loads as the
// router last saw them, refreshed only for replicas whose state changed since (marked stale), and,
// for a router with a fixed preference, the tournament tree that picks in O(log replicas). A pick
// sees exactly the snapshot a scan of every engine at that instant would take.
struct RouterPool {
  std::vector<std::size_t> replicas;  // replica index per position
  std::vector<ReplicaLoad> loads;     // per position
  std::vector<std::size_t> stale;     // positions whose engine changed since their load was taken
  std::unique_ptr<LoadTournament> tournament;  // null: the router needs route()'s snapshot
};

// A disaggregated request between its arrival and its completion on a decode replica.
struct Handoff {
  RequestSpec spec;  // the real one (the prefill replica sees output_tokens = 1)
  std::size_t prefill = 0, decode = 0;
  SimTime first_admitted = -1;
  std::int64_t prefill_tokens_computed = 0;
  std::int32_t preemptions = 0;
  std::int64_t inbound_tokens = 0, inbound_kv = 0;  // what the decode replica is promised
};

class ClusterLoop {
 public:
  ClusterLoop(const ClusterWiring& wiring, Workload& workload, const ClusterCompletion& observer,
              const bool* stop)
      : w_(wiring), workload_(workload), observer_(observer), stop_(stop) {
    const std::size_t n = w_.replicas.size();
    if (n == 0) throw std::invalid_argument("a cluster needs at least one replica");
    if (!w_.arrival_router) throw std::invalid_argument("a cluster needs a router");
    for (std::size_t i = 0; i < n; ++i) {
      if (!w_.replicas[i].engine) throw std::invalid_argument("replica without an engine");
      switch (w_.replicas[i].role) {
        case ReplicaRole::kColocated:
        case ReplicaRole::kPrefill:
          entry_pool_.replicas.push_back(i);
          break;
        case ReplicaRole::kDecode:
          decode_pool_.replicas.push_back(i);
          break;
      }
    }
    disaggregated_ = !decode_pool_.replicas.empty();
    if (disaggregated_) {
      for (std::size_t i : entry_pool_.replicas) {
        if (w_.replicas[i].role != ReplicaRole::kPrefill) {
          throw std::invalid_argument("colocated and decode replicas cannot be mixed");
        }
      }
      if (entry_pool_.replicas.empty())
        throw std::invalid_argument("decode replicas need prefill replicas");
      if (!w_.decode_router || !w_.transport) {
        throw std::invalid_argument("disaggregated prefill needs a decode router and a transport");
      }
      if (!(w_.kv_bytes_per_token >= 0) || !std::isfinite(w_.kv_bytes_per_token)) {
        throw std::invalid_argument("kv_bytes_per_token must be finite and >= 0");
      }
      for (std::size_t d : decode_pool_.replicas) {
        const Engine& e = *w_.replicas[d].engine;
        decode_fit_ = std::max(decode_fit_, e.kv_capacity() - e.config().drafter.gamma - 1);
      }
    } else if (entry_pool_.replicas.size() != n) {
      throw std::invalid_argument("prefill replicas need decode replicas");
    }
    stats_.replicas.resize(n);
    start_pending_.assign(n, false);
    inbound_tokens_.assign(n, 0);
    inbound_kv_.assign(n, 0);
    pool_of_.assign(n, nullptr);
    position_.assign(n, 0);
    load_stale_.assign(n, false);
    init_pool(entry_pool_, *w_.arrival_router);
    if (disaggregated_) init_pool(decode_pool_, *w_.decode_router);
    for (std::size_t i = 0; i < n; ++i) {
      w_.replicas[i].engine->batch_itl_adds();  // (each replica's histograms are cold per step)
      w_.replicas[i].engine->set_completion_handler(
          [this, i](const Request& r, SimTime now) { on_complete(i, r, now); });
    }
  }

  ClusterStats run() {
    pull_scheduled();
    while (stop_ == nullptr || !*stop_) {
      let_transfers_land();
      if (agenda_.empty()) break;
      const Event event = agenda_.pop();
      now_ = event.time;
      ++stats_.events;
      stats_.end_time = event.time;
      std::optional<std::size_t> changed;  // the replica whose state this event changed
      switch (event.kind) {
        case EventKind::kStepEnd: {
          const std::size_t r = event.payload >> 1;
          warm_next_steps();
          stats_.replicas[r].end_time = event.time;
          engine(r).finish_step(static_cast<EngineLane>(event.payload & 1), event.time);
          mark_stale(r);
          changed = r;
          break;
        }
        case EventKind::kArrival:
          changed = on_arrival_kind(event);
          break;
        case EventKind::kStepStart:
          start_steps(event.payload, event.time);
          continue;  // a failed start changes nothing: only a later event may enable one
      }
      // State changed at this instant: plan a step once every event at this time has been seen.
      if (changed && !start_pending_[*changed] && !engine(*changed).idle()) {
        if (start_runs_next(event.time)) {
          // Nothing else is due at this instant, so the start would be the very next event: run
          // it now, counted and numbered as if it had gone through the agenda.
          agenda_.skip_sequence();
          ++stats_.events;
          start_steps(*changed, event.time);
        } else {
          agenda_.push(event.time, EventKind::kStepStart, *changed);
          start_pending_[*changed] = true;
        }
      }
    }
    // As run_simulation: a replica's front end may stream its last chunk after its last event.
    for (std::size_t r = 0; r < w_.replicas.size(); ++r) {
      const SimTime streamed = engine(r).front_end().server().busy_until();
      stats_.replicas[r].end_time = std::max(stats_.replicas[r].end_time, streamed);
      stats_.end_time = std::max(stats_.end_time, streamed);
    }
    return std::move(stats_);
  }

 private:
  Engine& engine(std::size_t r) { return *w_.replicas[r].engine; }

  // A step-start event of replica r at `time`: each idle lane with work starts a step.
  void start_steps(std::size_t r, SimTime time) {
    stats_.replicas[r].end_time = time;
    start_pending_[r] = false;
    mark_stale(r);
    for (EngineLane lane : {EngineLane::kMain, EngineLane::kPrefill}) {
      if (auto end = engine(r).try_start_step(lane, time)) {
        agenda_.push(*end, EventKind::kStepEnd, (r << 1) | static_cast<std::uint64_t>(lane));
      }
    }
  }

  // Whether a step start pushed now at `time` would be the next event the loop pops: nothing
  // else due at `time` and no transfer that could land before it.
  bool start_runs_next(SimTime time) const {
    return (!w_.transport || !w_.transport->busy()) && agenda_.nothing_due_by(time);
  }

  void warm_next_steps() const {
    warm_next_step_ends(agenda_, [this](std::uint64_t r) { return w_.replicas[r].engine; });
  }

  // Transfers landing no later than the next event become arrival-kind events at their landing
  // time (never before the current instant: the agenda does not travel back).
  void let_transfers_land() {
    if (!w_.transport) return;
    while (w_.transport->busy()) {
      std::optional<SimTime> limit;
      if (!agenda_.empty()) limit = agenda_.top().time;
      const auto landing = w_.transport->next_landing(limit);
      if (!landing) return;
      agenda_.push(std::max(landing->time, now_), EventKind::kArrival,
                   kLandingTag | static_cast<std::uint64_t>(landing->transfer));
    }
  }

  void queue_arrival(const RequestSpec& spec, bool scheduled) {
    std::uint64_t slot;
    if (!free_pending_.empty()) {
      slot = free_pending_.back();
      free_pending_.pop_back();
      pending_[slot] = spec;
    } else {
      slot = pending_.size();
      pending_.push_back(spec);
    }
    agenda_.push(spec.arrival, EventKind::kArrival, slot | (scheduled ? kScheduledTag : 0));
  }

  void pull_scheduled() {
    if (auto spec = workload_.next_scheduled()) queue_arrival(*spec, true);
  }

  ReplicaLoad load_of(std::size_t r) {
    ReplicaLoad load = engine_load(engine(r));
    load.outstanding_tokens += inbound_tokens_[r];
    load.kv_reserved_tokens += inbound_kv_[r];
    return load;
  }

  void init_pool(RouterPool& pool, const Router& router) {
    pool.loads.resize(pool.replicas.size());
    for (std::size_t p = 0; p < pool.replicas.size(); ++p) {
      const std::size_t r = pool.replicas[p];
      pool_of_[r] = &pool;
      position_[r] = p;
      pool.loads[p] = load_of(r);
    }
    if (const LoadPreference prefers = router.preference()) {
      pool.tournament = std::make_unique<LoadTournament>(prefers, pool.loads);
    }
  }

  // Replica r's engine (or what is on its way to it) changed: its load is re-read at the next pick.
  void mark_stale(std::size_t r) {
    if (load_stale_[r]) return;
    load_stale_[r] = true;
    pool_of_[r]->stale.push_back(position_[r]);
  }

  std::size_t pick(Router& router, RouterPool& pool, const RequestSpec& spec) {
    for (const std::size_t p : pool.stale) {
      const std::size_t r = pool.replicas[p];
      load_stale_[r] = false;
      pool.loads[p] = load_of(r);
    }
    if (pool.tournament) {
      // Past a quarter of the pool, replaying every match is cheaper than a path per replica.
      if (pool.stale.size() * 4 > pool.replicas.size()) {
        pool.tournament->rebuild();
      } else {
        for (const std::size_t p : pool.stale) pool.tournament->update(p);
      }
    }
    pool.stale.clear();
    const std::size_t choice =
        pool.tournament ? pool.tournament->winner() : router.route(spec, pool.loads);
    if (choice >= pool.replicas.size()) {
      throw std::logic_error("router chose replica " + std::to_string(choice) + " of " +
                             std::to_string(pool.replicas.size()));
    }
    return pool.replicas[choice];
  }

  std::optional<std::size_t> on_arrival_kind(const Event& event) {
    const std::uint64_t index = event.payload & ~kTagMask;
    if (event.payload & kHandoffTag) {
      route_handoff(index, event.time);
      return std::nullopt;
    }
    if (event.payload & kLandingTag) return land(index, event.time);

    const RequestSpec spec = pending_[index];
    free_pending_.push_back(index);
    const std::uint64_t id = next_id_++;
    ++stats_.requests_submitted;
    std::optional<std::size_t> changed;
    if (!disaggregated_) {
      const std::size_t r = pick(*w_.arrival_router, entry_pool_, spec);
      changed = r;
      submit(r, id, spec, event.time);
    } else if (spec.prompt_tokens + spec.output_tokens > decode_fit_) {
      ++stats_.requests_rejected_kv;  // no decode replica could ever hold it
    } else {
      const std::size_t p = pick(*w_.arrival_router, entry_pool_, spec);
      changed = p;
      RequestSpec prefill_only = spec;
      if (spec.output_tokens > 1) {
        prefill_only.output_tokens = 1;  // the prefill replica stops at the first token
        handoffs_.emplace(id, Handoff{spec, p});
      }
      if (!submit(p, id, prefill_only, event.time)) handoffs_.erase(id);
    }
    if (event.payload & kScheduledTag) pull_scheduled();
    return changed;
  }

  bool submit(std::size_t r, std::uint64_t id, const RequestSpec& spec, SimTime now) {
    ReplicaStats& rs = stats_.replicas[r];
    ++rs.requests_submitted;
    rs.end_time = now;
    mark_stale(r);
    if (engine(r).submit(id, spec, now)) return true;
    ++rs.requests_rejected_kv;
    ++stats_.requests_rejected_kv;
    return false;
  }

  // A prefill finished: choose the decode replica now that every step ending at this instant has
  // been applied, and start moving the prompt's KV there.
  void route_handoff(std::uint64_t id, SimTime now) {
    Handoff& h = handoffs_.at(id);
    h.decode = pick(*w_.decode_router, decode_pool_, h.spec);
    const int gamma = engine(h.decode).config().drafter.gamma;
    h.inbound_tokens = h.spec.output_tokens - 1;
    h.inbound_kv = h.spec.prompt_tokens + 1 + gamma + 1;
    inbound_tokens_[h.decode] += h.inbound_tokens;
    inbound_kv_[h.decode] += h.inbound_kv;
    mark_stale(h.decode);
    const auto bytes = static_cast<std::uint64_t>(
        std::llround(static_cast<double>(h.spec.prompt_tokens) * w_.kv_bytes_per_token));
    const std::size_t transfer = w_.transport->start(id, h.prefill, h.decode, bytes, now);
    transfer_to_request_.emplace(transfer, id);
    ++stats_.kv_transfers;
  }

  std::optional<std::size_t> land(std::uint64_t transfer, SimTime now) {
    const auto it = transfer_to_request_.find(transfer);
    if (it == transfer_to_request_.end()) throw std::logic_error("unknown KV transfer landed");
    const std::uint64_t id = it->second;
    transfer_to_request_.erase(it);
    Handoff& h = handoffs_.at(id);
    const std::size_t d = h.decode;
    inbound_tokens_[d] -= h.inbound_tokens;
    inbound_kv_[d] -= h.inbound_kv;
    mark_stale(d);
    ReplicaStats& rs = stats_.replicas[d];
    ++rs.requests_submitted;
    rs.end_time = now;
    if (!engine(d).submit_prefilled(id, h.spec, h.spec.arrival, now)) {
      ++rs.requests_rejected_kv;
      ++stats_.requests_rejected_kv;
      handoffs_.erase(id);
    }
    return d;
  }

  void on_complete(std::size_t r, const Request& request, SimTime now) {
    const auto it = handoffs_.find(request.id);
    if (it != handoffs_.end() && w_.replicas[r].role == ReplicaRole::kPrefill) {
      // The prompt is in KV and the first token sampled: hand it off once this instant's step
      // ends are all applied (an arrival-kind event orders after them).
      Handoff& h = it->second;
      h.first_admitted = request.first_admitted;
      h.prefill_tokens_computed = request.prefill_tokens_computed;
      h.preemptions = request.preemptions;
      agenda_.push(now, EventKind::kArrival, kHandoffTag | request.id);
      return;
    }
    if (auto follow_up = workload_.on_completion(now)) queue_arrival(*follow_up, false);
    if (it == handoffs_.end()) {
      if (observer_) observer_(request, r, now);
      return;
    }
    Request whole = request;
    whole.first_admitted = it->second.first_admitted;
    whole.prefill_tokens_computed += it->second.prefill_tokens_computed;
    whole.preemptions += it->second.preemptions;
    handoffs_.erase(it);
    if (observer_) observer_(whole, r, now);
  }

  const ClusterWiring& w_;
  Workload& workload_;
  const ClusterCompletion& observer_;
  const bool* stop_;  // ends the run early once true (null: never)
  RouterPool entry_pool_, decode_pool_;
  bool disaggregated_ = false;
  std::int64_t decode_fit_ = 0;  // largest prompt + output some decode replica can ever hold

  Agenda agenda_;
  SimTime now_ = 0;
  ClusterStats stats_;
  std::vector<bool> start_pending_;
  std::vector<RequestSpec> pending_;  // specs of queued arrivals, slot-reused
  std::vector<std::uint64_t> free_pending_;
  std::uint64_t next_id_ = 0;
  std::vector<RouterPool*> pool_of_;   // per replica: its pool
  std::vector<std::size_t> position_;  // per replica: its position in that pool
  std::vector<bool> load_stale_;       // per replica: listed in its pool's stale positions
  std::vector<std::int64_t> inbound_tokens_, inbound_kv_;  // per replica: hand-offs on the way
  // Keyed by request id and transfer id (integers): lookups only, never iterated.
  std::unordered_map<std::uint64_t, Handoff> handoffs_;
  std::unordered_map<std::size_t, std::uint64_t> transfer_to_request_;
};

}  // namespace

ClusterStats run_cluster_simulation(const ClusterWiring& wiring, Workload& workload,
                                    const ClusterCompletion& observer, std::size_t threads,
                                    const bool* stop) {
  if (threads > 1 && stop == nullptr && windowed_cluster_applies(wiring, workload)) {
    return run_windowed_cluster(wiring, workload, observer, threads, threads);
  }
  ClusterLoop loop(wiring, workload, observer, stop);
  return loop.run();
}

}  // namespace sparksim
