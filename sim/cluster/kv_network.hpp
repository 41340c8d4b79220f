// KvNetwork: KV transfers as SimGrid communications between the replicas' hosts, so their times
// come from SimGrid's network model: latency + bytes / bandwidth on an idle route, slower when
// transfers share a link. Also keeps what each link carried, for the utilisation report.
// Runs inside the router actor (ClusterPlatform::run_router): waiting for a landing advances
// SimGrid's clock.
#pragma once

#include <string>
#include <vector>

#include <simgrid/s4u/Comm.hpp>

#include "sim/cluster/kv_transport.hpp"
#include "sim/cluster/platform.hpp"

namespace sparksim {

struct KvTransferRecord {
  std::uint64_t request_id = 0;
  std::size_t from = 0, to = 0;  // replicas
  std::uint64_t bytes = 0;
  SimTime start = 0;
  SimTime land = -1;  // -1 while in flight
  double route_latency_s = 0;
  double route_bandwidth_bytes_s = 0;  // the route's bottleneck
};

struct LinkUsage {
  std::string name;
  double bandwidth_bytes_s = 0;
  double latency_s = 0;
  std::int64_t transfers = 0;
  std::uint64_t bytes = 0;
  SimTime busy = 0;  // time with at least one transfer on the link (union of transfer intervals)
};

class KvNetwork final : public KvTransport {
 public:
  explicit KvNetwork(ClusterPlatform& platform) : platform_(platform) {}

  std::size_t start(std::uint64_t request_id, std::size_t from, std::size_t to, std::uint64_t bytes,
                    SimTime now) override;
  bool busy() const override { return !in_flight_.empty(); }
  std::optional<KvLanding> next_landing(std::optional<SimTime> limit) override;

  const std::vector<KvTransferRecord>& transfers() const { return transfers_; }
  // Every link that carried at least one transfer, in the order first used.
  std::vector<LinkUsage> link_usage() const;

 private:
  struct InFlight {
    std::size_t transfer;
    double started_at;  // SimGrid clock (s) when it started
  };
  ClusterPlatform& platform_;
  std::vector<KvTransferRecord> transfers_;
  std::vector<simgrid::s4u::CommPtr> comms_;  // parallel to in_flight_
  std::vector<InFlight> in_flight_;
};

}  // namespace sparksim
