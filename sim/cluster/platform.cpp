// Building or loading the SimGrid platform, placing the router and the replicas, checking routes.
#include "sim/cluster/platform.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "common/input_error.hpp"
#include "sim/cluster/subprocess.hpp"

namespace sg4 = simgrid::s4u;

namespace sparksim {

namespace {

// SimGrid allows one engine per process, and its clock is never reset.
bool g_engine_created = false;
// True in the child process that test-loads a platform file (see ClusterPlatform::create).
bool g_in_platform_check = false;

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open platform file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// 1-based line of the first line holding all of `needles`; 0 if none.
std::int64_t line_with(const std::string& text, std::initializer_list<std::string> needles) {
  std::istringstream in(text);
  std::string line;
  for (std::int64_t number = 1; std::getline(in, line); ++number) {
    if (std::all_of(needles.begin(), needles.end(),
                    [&](const std::string& n) { return line.find(n) != std::string::npos; })) {
      return number;
    }
  }
  return 0;
}

std::int64_t line_of_id(const std::string& text, const std::string& tag, const std::string& id) {
  if (const auto line = line_with(text, {"<" + tag, "id=\"" + id + "\""})) return line;
  return line_with(text, {"<" + tag, "id='" + id + "'"});
}

std::string format_gb_s(double bytes_s) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g GB/s", bytes_s / 1e9);
  return buffer;
}

std::string format_us(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g us", seconds * 1e6);
  return buffer;
}

// Two hosts are connected when SimGrid knows a route with at least one link: a full zone answers
// a missing route with an empty one (and aborts when a transfer then uses it).
bool connected(const sg4::Host* from, const sg4::Host* to, RouteInfo* info) {
  if (from == to) return true;
  RouteInfo route;
  try {
    from->route_to(to, route.links, &route.latency_s);
  } catch (const std::exception&) {
    return false;
  }
  if (route.links.empty()) return false;
  if (info) *info = std::move(route);
  return true;
}

}  // namespace

std::vector<std::string> default_simgrid_config() {
  // CM02 with unit factors, no TCP window bound (gamma / 2·latency) and no cross-traffic on the
  // reverse path: an idle route then takes exactly latency + bytes / bottleneck bandwidth, and
  // flows on a shared link split its bandwidth max-min fairly.
  return {"network/model:CM02", "network/latency-factor:1", "network/bandwidth-factor:1",
          "network/weight-S:0", "network/TCP-gamma:0",      "network/crosstraffic:0"};
}

std::unique_ptr<ClusterPlatform> ClusterPlatform::create(const PlatformSpec& spec) {
  if (g_engine_created) {
    throw std::logic_error(
        "a SimGrid simulation already ran in this process; SimGrid allows one per process "
        "(run_in_subprocess runs each in a child process)");
  }
  // Check the user's options before SimGrid sees them: it aborts on a malformed one.
  for (const std::string& option : spec.simgrid_config) {
    if (option.find(':') == std::string::npos || option.front() == ':') {
      throw InputError("--simgrid-cfg: '" + option + "' is not of the form key:value");
    }
  }
  std::unique_ptr<ClusterPlatform> platform(new ClusterPlatform());
  if (!spec.platform_path.empty()) {
    const auto& p = spec.platform_path;
    if (p.size() < 4 || p.compare(p.size() - 4, 4, ".xml") != 0) {
      throw InputError(p, 0, "a platform file must be SimGrid XML (*.xml)");
    }
    platform->platform_text_ = read_text(p);
    if (!g_in_platform_check) {
      // SimGrid aborts the process (xbt_die) on some malformed platforms instead of throwing,
      // e.g. an unknown routing="..." model (found by fuzz/platform_fuzzer.cpp), which would end
      // the run with no `path: what` and no exit code 2. So the file is loaded once, with every
      // check below, in a child process first: if the child dies, the file is at fault.
      try {
        run_in_subprocess([&] {
          g_in_platform_check = true;
          create(spec);
          return std::string();
        });
      } catch (const InputError&) {
        throw;
      } catch (const std::exception& e) {
        throw InputError(p, 0,
                         "SimGrid could not load this platform (" + first_line(e.what()) +
                             "; SimGrid's own message is printed above)");
      }
    }
  }

  g_engine_created = true;
  std::string program = "sparksim";
  std::string log = "--log=root.thresh:warning";
  char* argv[] = {program.data(), log.data(), nullptr};
  int argc = 2;
  platform->engine_ = std::make_unique<sg4::Engine>(&argc, argv);
  std::vector<std::string> options = default_simgrid_config();
  options.insert(options.end(), spec.simgrid_config.begin(), spec.simgrid_config.end());
  for (const std::string& option : options) {
    try {
      sg4::Engine::set_config(option);
    } catch (const std::exception& e) {
      throw InputError("--simgrid-cfg: '" + option + "': " + first_line(e.what()));
    }
  }
  if (spec.platform_path.empty()) {
    platform->build_builtin(spec);
  } else {
    platform->load_file(spec);
  }
  platform->routes_.resize(platform->replica_hosts_.size());
  for (auto& row : platform->routes_) row.resize(platform->replica_hosts_.size());
  platform->check_routes(spec);
  return platform;
}

ClusterPlatform::~ClusterPlatform() = default;

void ClusterPlatform::build_builtin(const PlatformSpec& spec) {
  const BuiltinTopology& t = spec.builtin;
  const std::int64_t g = spec.gpus_per_replica;
  if (g > t.gpus_per_node) {
    throw InputError("--gpus-per-node " + std::to_string(t.gpus_per_node) +
                     " cannot hold one replica of " + std::to_string(g) +
                     " GPUs (the profile's gpus); replicas do not span nodes");
  }
  const std::int64_t per_node = t.gpus_per_node / g;
  auto* zone = sg4::create_full_zone("sparksim-cluster");
  // Each link of a two-link route carries half the route's latency, so a transfer's latency is
  // the configured one.
  auto make_link = [&](const std::string& name, double bandwidth, double latency) {
    sg4::SplitDuplexLink* link = zone->create_split_duplex_link(name, bandwidth);
    link->set_latency(latency / 2);
    link->seal();
    return link;
  };
  router_host_ = zone->create_host("router", 1e9);
  sg4::SplitDuplexLink* router_nic =
      make_link("router-nic", t.network_bandwidth_bytes_s, t.network_latency_s);
  std::vector<sg4::SplitDuplexLink*> nvlinks, nics;
  std::vector<std::int64_t> node_of;
  for (std::int64_t i = 0; i < spec.replicas; ++i) {
    const std::int64_t node = i / per_node;
    const std::int64_t gpu = (i % per_node) * g;
    const std::string name = "node" + std::to_string(node) + "-gpu" + std::to_string(gpu);
    replica_hosts_.push_back(zone->create_host(name, 1e9));
    nvlinks.push_back(make_link(
        name + "-nvlink", static_cast<double>(g) * t.nvlink_bandwidth_bytes_s, t.nvlink_latency_s));
    nics.push_back(make_link(name + "-nic", static_cast<double>(g) * t.network_bandwidth_bytes_s,
                             t.network_latency_s));
    node_of.push_back(node);
  }
  using Direction = sg4::LinkInRoute::Direction;
  for (std::size_t i = 0; i < replica_hosts_.size(); ++i) {
    zone->add_route(router_host_->get_netpoint(), replica_hosts_[i]->get_netpoint(), nullptr,
                    nullptr, {{router_nic, Direction::UP}, {nics[i], Direction::DOWN}}, false);
  }
  const auto prefill = static_cast<std::size_t>(spec.prefill_replicas);
  for (std::size_t p = 0; p < prefill; ++p) {
    for (std::size_t d = prefill; d < replica_hosts_.size(); ++d) {
      const bool same_node = node_of[p] == node_of[d];
      auto* up = same_node ? nvlinks[p] : nics[p];
      auto* down = same_node ? nvlinks[d] : nics[d];
      zone->add_route(replica_hosts_[p]->get_netpoint(), replica_hosts_[d]->get_netpoint(), nullptr,
                      nullptr, {{up, Direction::UP}, {down, Direction::DOWN}}, false);
    }
  }
  zone->seal();
  const std::int64_t nodes = (spec.replicas + per_node - 1) / per_node;
  description_ = "built-in: " + std::to_string(spec.replicas) + " replicas of " +
                 std::to_string(g) + " GPU(s) on " + std::to_string(nodes) + " node(s) of " +
                 std::to_string(t.gpus_per_node) + " GPUs; NVLink " +
                 format_gb_s(t.nvlink_bandwidth_bytes_s) + " " + format_us(t.nvlink_latency_s) +
                 ", network " + format_gb_s(t.network_bandwidth_bytes_s) + " " +
                 format_us(t.network_latency_s) + " (per GPU and direction)";
}

void ClusterPlatform::load_file(const PlatformSpec& spec) {
  const std::string& path = spec.platform_path;
  const std::string& text = platform_text_;
  // Hosts in the order the file declares them (get_all_hosts() follows a hash order).
  auto declared = std::make_shared<std::vector<sg4::Host*>>();
  sg4::Host::on_creation_cb([declared](sg4::Host& host) { declared->push_back(&host); });
  try {
    engine_->load_platform(path);
  } catch (const simgrid::ParseError& e) {
    // "Parse error at FILE:LINE: what"
    const std::string message = e.what();
    const std::string prefix = "Parse error at " + path + ":";
    std::int64_t line = 0;
    std::string what = message;
    if (message.rfind(prefix, 0) == 0) {
      const std::size_t colon = message.find(": ", prefix.size());
      if (colon != std::string::npos) {
        line = std::atoll(message.substr(prefix.size(), colon - prefix.size()).c_str());
        what = message.substr(colon + 2);
      }
    }
    throw InputError(path, line, "invalid SimGrid platform: " + first_line(what));
  } catch (const std::exception& e) {
    // e.g. "Link not found: nolink": point at the line that names it.
    const std::string what = first_line(e.what());
    std::int64_t line = 0;
    const std::size_t colon = what.rfind(": ");
    if (colon != std::string::npos) {
      const std::string name = what.substr(colon + 2);
      line = line_with(text, {"\"" + name + "\""});
      if (line == 0) line = line_with(text, {"'" + name + "'"});
    }
    throw InputError(path, line, "invalid SimGrid platform: " + what);
  }
  const std::vector<sg4::Host*>& hosts = *declared;

  router_host_ = engine_->host_by_name_or_null(spec.router_host);
  std::string names;
  for (const sg4::Host* h : hosts) names += (names.empty() ? "" : ", ") + h->get_name();
  if (!router_host_) {
    throw InputError(path, 0,
                     "no host named '" + spec.router_host +
                         "' for the router (--router-host picks another); hosts: " + names);
  }
  for (sg4::Host* h : hosts) {
    if (h != router_host_) replica_hosts_.push_back(h);
  }
  if (spec.replicas > static_cast<std::int64_t>(replica_hosts_.size())) {
    throw InputError(path, 0,
                     "--replicas " + std::to_string(spec.replicas) + " but the file has only " +
                         std::to_string(replica_hosts_.size()) + " host(s) besides the router's");
  }
  if (spec.replicas > 0) replica_hosts_.resize(static_cast<std::size_t>(spec.replicas));
  if (replica_hosts_.empty()) throw InputError(path, 0, "no host besides the router's");
  if (spec.prefill_replicas >= static_cast<std::int64_t>(replica_hosts_.size())) {
    throw InputError(path, 0,
                     "--prefill-replicas " + std::to_string(spec.prefill_replicas) +
                         " leaves no decode replica among " +
                         std::to_string(replica_hosts_.size()) + " replica host(s)");
  }
  std::string replicas;
  for (const sg4::Host* h : replica_hosts_) {
    replicas += (replicas.empty() ? "" : ", ") + h->get_name();
  }
  description_ = "platform file " + path + ": router on '" + router_host_->get_name() + "', " +
                 std::to_string(replica_hosts_.size()) + " replica(s) on " + replicas;
}

void ClusterPlatform::check_routes(const PlatformSpec& spec) {
  std::vector<std::string> problems;
  std::int64_t first_line_number = 0;
  const std::string& text = platform_text_;
  auto fail = [&](const sg4::Host* from, const sg4::Host* to, const char* what) {
    if (problems.size() < 10) {
      problems.push_back(std::string(what) + " '" + from->get_name() + "' cannot reach '" +
                         to->get_name() + "' (no route)");
    }
    if (first_line_number == 0 && !text.empty()) {
      first_line_number = line_of_id(text, "host", to->get_name());
    }
  };
  std::size_t failures = 0;
  for (const sg4::Host* replica : replica_hosts_) {
    if (!connected(router_host_, replica, nullptr)) {
      ++failures;
      fail(router_host_, replica, "router host");
    }
  }
  const auto prefill = static_cast<std::size_t>(spec.prefill_replicas);
  for (std::size_t p = 0; p < prefill; ++p) {
    for (std::size_t d = prefill; d < replica_hosts_.size(); ++d) {
      if (!connected(replica_hosts_[p], replica_hosts_[d], nullptr)) {
        ++failures;
        fail(replica_hosts_[p], replica_hosts_[d], "prefill replica host");
      }
    }
  }
  if (failures == 0) return;
  std::string message;
  for (const std::string& p : problems) message += (message.empty() ? "" : "; ") + p;
  if (failures > problems.size()) {
    message += "; and " + std::to_string(failures - problems.size()) + " more";
  }
  const std::string where = spec.platform_path.empty() ? "built-in topology" : spec.platform_path;
  throw InputError(where, first_line_number, message);
}

const RouteInfo& ClusterPlatform::route(std::size_t from, std::size_t to) {
  std::unique_ptr<RouteInfo>& slot = routes_.at(from).at(to);
  if (!slot) {
    slot = std::make_unique<RouteInfo>();
    if (!connected(replica_hosts_[from], replica_hosts_[to], slot.get())) {
      throw std::logic_error("no route from replica " + std::to_string(from) + " to " +
                             std::to_string(to));
    }
  }
  return *slot;
}

const std::string& ClusterPlatform::replica_host_name(std::size_t replica) const {
  return replica_hosts_.at(replica)->get_name();
}

const std::string& ClusterPlatform::router_host_name() const {
  return router_host_->get_name();
}

void ClusterPlatform::run_router(const std::function<void()>& body) {
  std::exception_ptr error;
  sg4::Actor::create("router", router_host_, [&body, &error] {
    try {
      body();
    } catch (const simgrid::ForcefulKillException&) {
      throw;  // SimGrid's own unwinding of a killed actor: not ours to keep
    } catch (...) {
      error = std::current_exception();
    }
  });
  engine_->run();
  if (error) std::rethrow_exception(error);
}

}  // namespace sparksim
