// KV transfers on SimGrid: start as asynchronous host-to-host communications, wait for landings
// with a deadline, convert SimGrid's floating-point clock back to integer nanoseconds.
#include "sim/cluster/kv_network.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <utility>

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace sparksim {

std::size_t KvNetwork::start(std::uint64_t request_id, std::size_t from, std::size_t to,
                             std::uint64_t bytes, SimTime now) {
  // With transfers in flight, next_landing() has already brought SimGrid's clock to `now`;
  // otherwise nothing is pending and the clock can jump there.
  const double now_s = sim_time_to_seconds(now);
  if (in_flight_.empty() && sg4::Engine::get_clock() < now_s) sg4::this_actor::sleep_until(now_s);

  const RouteInfo& route = platform_.route(from, to);
  KvTransferRecord record;
  record.request_id = request_id;
  record.from = from;
  record.to = to;
  record.bytes = bytes;
  record.start = now;
  record.route_latency_s = route.latency_s;
  record.route_bandwidth_bytes_s = std::numeric_limits<double>::infinity();
  for (const sg4::Link* link : route.links) {
    record.route_bandwidth_bytes_s =
        std::min(record.route_bandwidth_bytes_s, link->get_bandwidth());
  }
  const std::size_t id = transfers_.size();
  transfers_.push_back(record);
  // SimGrid 3.32's Comm::wait_any never returns for a zero-byte sendto (Comm::wait does): send at
  // least one byte, a difference below 0.1 ns on any link faster than 10 GB/s.
  comms_.push_back(sg4::Comm::sendto_async(platform_.replica_host(from), platform_.replica_host(to),
                                           std::max<std::uint64_t>(bytes, 1)));
  in_flight_.push_back(InFlight{id, sg4::Engine::get_clock()});
  return id;
}

std::optional<KvLanding> KvNetwork::next_landing(std::optional<SimTime> limit) {
  if (in_flight_.empty()) return std::nullopt;
  ssize_t index;
  if (limit) {
    // Wait until exactly the limit, not past it: a transfer started at the limit must start at
    // that SimGrid time, or the transfers it shares links with would see it late. One landing
    // at the very same date as the deadline is caught by test_any; one that rounds to the
    // limit's nanosecond but comes a hair later lands after the events at the limit, at the
    // right time (the cluster loop never moves an event before its instant).
    const double timeout = sim_time_to_seconds(*limit) - sg4::Engine::get_clock();
    index = timeout > 0 ? sg4::Comm::wait_any_for(comms_, timeout) : -1;
    if (index < 0) index = sg4::Comm::test_any(comms_);
  } else {
    index = sg4::Comm::wait_any(comms_);
  }
  if (index < 0) return std::nullopt;
  const auto i = static_cast<std::size_t>(index);
  const InFlight done = in_flight_[i];
  in_flight_.erase(in_flight_.begin() + index);
  comms_.erase(comms_.begin() + index);
  // The duration as SimGrid measured it, rounded to the nanosecond, from the integer start: no
  // drift between the two clocks however long the run.
  KvTransferRecord& record = transfers_[done.transfer];
  const double seconds = sg4::Engine::get_clock() - done.started_at;
  record.land = record.start + static_cast<SimTime>(std::llround(seconds * 1e9));
  return KvLanding{done.transfer, record.land};
}

std::vector<LinkUsage> KvNetwork::link_usage() const {
  std::vector<LinkUsage> usage;
  std::vector<std::vector<std::pair<SimTime, SimTime>>> intervals;
  std::unordered_map<const sg4::Link*, std::size_t> index;  // lookup only; order is first use
  for (const KvTransferRecord& t : transfers_) {
    if (t.land < 0) continue;
    for (const sg4::Link* link : platform_.route(t.from, t.to).links) {
      auto [it, inserted] = index.try_emplace(link, usage.size());
      if (inserted) {
        usage.push_back(LinkUsage{link->get_name(), link->get_bandwidth(), link->get_latency()});
        intervals.emplace_back();
      }
      LinkUsage& u = usage[it->second];
      ++u.transfers;
      u.bytes += t.bytes;
      intervals[it->second].emplace_back(t.start, t.land);
    }
  }
  for (std::size_t i = 0; i < usage.size(); ++i) {
    auto& spans = intervals[i];
    std::sort(spans.begin(), spans.end());
    SimTime covered_until = std::numeric_limits<SimTime>::min();
    for (const auto& [begin, end] : spans) {
      const SimTime from = std::max(begin, covered_until);
      if (end > from) usage[i].busy += end - from;
      covered_until = std::max(covered_until, end);
    }
  }
  return usage;
}

}  // namespace sparksim
