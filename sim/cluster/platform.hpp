// ClusterPlatform: the SimGrid side of a cluster: the process's SimGrid engine, the hosts the
// router and the replicas live on, and the links between them: either the built-in topology (nodes
// of N GPUs, NVLink-class links inside a node, network-class links between nodes) or a user's
// SimGrid platform file. Every route the simulation will use is checked before it starts, so a
// platform that cannot carry the run fails with `path:line: what` instead of mid-simulation.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace simgrid::s4u {
class Engine;
class Host;
class Link;
}  // namespace simgrid::s4u

namespace sparksim {

// The built-in topology. Bandwidths are per GPU and per direction; a replica of g GPUs (tensor
// parallel) moves its KV shards over its g GPUs' links at once, so its links carry g times these.
struct BuiltinTopology {
  std::int64_t gpus_per_node = 8;
  double nvlink_bandwidth_bytes_s = 450e9;  // NVLink 4 (H100/H200): 900 GB/s both directions
  double nvlink_latency_s = 1e-6;
  double network_bandwidth_bytes_s = 50e9;  // one 400 Gb/s NIC per GPU (DGX H100)
  double network_latency_s = 5e-6;
};

struct PlatformSpec {
  // A SimGrid platform file (XML); empty = the built-in topology.
  std::string platform_path;
  // Platform file: the host the router runs on; every other host, in the order the file declares
  // them, is a replica (the first `replicas` of them when replicas > 0).
  std::string router_host = "router";
  std::int64_t replicas = 0;          // built-in: > 0; platform file: 0 = all non-router hosts
  std::int64_t prefill_replicas = 0;  // the first P replicas prefill; the others decode
  std::int64_t gpus_per_replica = 1;  // built-in: GPUs per replica (tensor parallel degree)
  BuiltinTopology builtin;
  // Extra SimGrid options ("key:value"), applied after sparksim's network defaults.
  std::vector<std::string> simgrid_config;
};

struct RouteInfo {
  std::vector<simgrid::s4u::Link*> links;
  double latency_s = 0;
};

class ClusterPlatform {
 public:
  // Creates this process's SimGrid engine with the network model set so that one transfer on an
  // idle route takes exactly latency + bytes / bottleneck bandwidth (CM02 without TCP window or
  // cross-traffic corrections), builds or loads the platform, and checks that the router reaches
  // every replica and every prefill replica reaches every decode replica. Throws InputError for a
  // bad platform (`path:line: what` where SimGrid or the file tells the line), std::logic_error if
  // this process already created a SimGrid engine (SimGrid allows one simulation per process).
  static std::unique_ptr<ClusterPlatform> create(const PlatformSpec& spec);
  ~ClusterPlatform();
  ClusterPlatform(const ClusterPlatform&) = delete;
  ClusterPlatform& operator=(const ClusterPlatform&) = delete;

  std::size_t replica_count() const { return replica_hosts_.size(); }
  simgrid::s4u::Host* replica_host(std::size_t replica) const { return replica_hosts_[replica]; }
  simgrid::s4u::Host* router_host() const { return router_host_; }
  const std::string& replica_host_name(std::size_t replica) const;
  const std::string& router_host_name() const;
  const std::string& description() const { return description_; }
  // The route between two replicas' hosts (checked at creation for prefill → decode pairs).
  const RouteInfo& route(std::size_t from_replica, std::size_t to_replica);

  // Runs `body` as the router actor on the router host until it returns, then returns; an
  // exception thrown by `body` is rethrown here (SimGrid would otherwise abort the process).
  void run_router(const std::function<void()>& body);

 private:
  ClusterPlatform() = default;
  void build_builtin(const PlatformSpec& spec);
  void load_file(const PlatformSpec& spec);
  void check_routes(const PlatformSpec& spec);

  std::unique_ptr<simgrid::s4u::Engine> engine_;
  std::vector<simgrid::s4u::Host*> replica_hosts_;
  simgrid::s4u::Host* router_host_ = nullptr;
  std::string description_;
  std::string platform_text_;  // the platform file's bytes, to point errors at lines
  std::vector<std::vector<std::unique_ptr<RouteInfo>>> routes_;  // [from][to], filled lazily
};

// The SimGrid options sparksim sets before any of the user's (see ClusterPlatform::create).
std::vector<std::string> default_simgrid_config();

}  // namespace sparksim
