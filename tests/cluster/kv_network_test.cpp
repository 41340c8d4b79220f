// KV transfers on SimGrid's network model, each scenario in a forked child (SimGrid allows one
// simulation per process): an idle route takes latency + bytes / bandwidth to the nanosecond;
// transfers sharing a link split its bandwidth (hand-computed max-min sharing); link accounting.
#include "sim/cluster/kv_network.hpp"

#include <sstream>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "sim/cluster/subprocess.hpp"

using namespace sparksim;

namespace {

constexpr SimTime kMs = 1'000'000;

// The built-in topology with `gpus_per_node`: replicas 0 and 1 prefill, 2 and 3 decode.
PlatformSpec four_replicas(std::int64_t gpus_per_node) {
  PlatformSpec spec;
  spec.replicas = 4;
  spec.prefill_replicas = 2;
  spec.builtin.gpus_per_node = gpus_per_node;
  return spec;
}

// Transfer durations in ns, in landing order, as "id:duration " pairs.
struct Planned {
  std::size_t from, to;
  std::uint64_t bytes;
  SimTime start;
};

std::string simulate(const PlatformSpec& spec, const std::vector<Planned>& plan) {
  auto platform = ClusterPlatform::create(spec);
  KvNetwork network(*platform);
  std::ostringstream out;
  platform->run_router([&] {
    for (std::size_t i = 0; i < plan.size(); ++i) {
      // What the cluster loop does: let earlier transfers land before starting the next one.
      while (auto landing = network.next_landing(plan[i].start)) {
        out << landing->transfer << ":" << landing->time - plan[landing->transfer].start << " ";
      }
      network.start(i, plan[i].from, plan[i].to, plan[i].bytes, plan[i].start);
    }
    while (auto landing = network.next_landing(std::nullopt)) {
      out << landing->transfer << ":" << landing->time - plan[landing->transfer].start << " ";
    }
  });
  for (const LinkUsage& u : network.link_usage()) {
    out << "| " << u.name << " " << u.transfers << " " << u.bytes << " " << u.busy << " ";
  }
  return out.str();
}

// simulate() in a forked child: SimGrid allows one simulation per process.
std::string simulate_apart(const PlatformSpec& spec, const std::vector<Planned>& plan) {
  return run_in_subprocess([&] { return simulate(spec, plan); });
}

std::vector<std::pair<std::size_t, SimTime>> durations(const std::string& text) {
  std::vector<std::pair<std::size_t, SimTime>> out;
  std::istringstream in(text.substr(0, text.find('|')));
  std::string item;
  while (in >> item) {
    const auto colon = item.find(':');
    out.emplace_back(std::stoul(item.substr(0, colon)), std::stoll(item.substr(colon + 1)));
  }
  return out;
}

}  // namespace

TEST_CASE("an idle inter-node route takes latency + bytes / bandwidth, to the nanosecond") {
  // Two GPUs per node: replicas 0, 1 on node 0 and 2, 3 on node 1; NIC 50 GB/s, 5 us.
  const std::string text = simulate_apart(
      four_replicas(2),
      {{0, 2, 100'000'000, 1 * kMs}, {1, 3, 123'456'789, 10 * kMs}, {0, 3, 0, 20 * kMs}});
  INFO(text);
  const auto d = durations(text);
  REQUIRE(d.size() == 3);
  CHECK(d[0] == std::make_pair<std::size_t, SimTime>(0, 2'005'000));  // 2 ms + 5 us
  // 123456789 B / 50e9 B/s = 2469135.78 ns, + 5000 ns latency, rounded to the ns.
  CHECK(d[1] == std::make_pair<std::size_t, SimTime>(1, 2'474'136));
  CHECK(d[2] == std::make_pair<std::size_t, SimTime>(2, 5'000));  // (sent as 1 B): latency
  CHECK(text.find("node0-gpu0-nic_UP 2 100000000 2010000") != std::string::npos);
}

TEST_CASE("an idle intra-node route uses NVLink: latency + bytes / bandwidth") {
  // Eight GPUs per node: everything on node 0; NVLink 450 GB/s, 1 us.
  const std::string text = simulate_apart(four_replicas(8), {{1, 2, 900'000'000, 3 * kMs}});
  INFO(text);
  const auto d = durations(text);
  REQUIRE(d.size() == 1);
  CHECK(d[0].second == 2'001'000);  // 2 ms + 1 us
  CHECK(text.find("node0-gpu1-nvlink_UP") != std::string::npos);
  CHECK(text.find("node0-gpu2-nvlink_DOWN") != std::string::npos);
}

TEST_CASE("transfers sharing a link split its bandwidth") {
  SECTION("two at once into one decode replica: each at half bandwidth") {
    const std::string text = simulate_apart(
        four_replicas(2), {{0, 2, 100'000'000, 1 * kMs}, {1, 2, 100'000'000, 1 * kMs}});
    INFO(text);
    const auto d = durations(text);
    REQUIRE(d.size() == 2);
    CHECK(d[0].second == 4'005'000);  // 1e8 B at 25 GB/s + 5 us
    CHECK(d[1].second == 4'005'000);
    // The shared NIC was busy for the 4.005 ms both needed, and carried both.
    CHECK(text.find("node1-gpu0-nic_DOWN 2 200000000 4005000") != std::string::npos);
  }
  SECTION("staggered by 1 ms: alone, shared, alone again") {
    // A (start 0): alone at 50 GB/s from 5 us to 1.005 ms (5e7 B sent), then shares with B at
    // 25 GB/s for the other 5e7 B (2 ms): lands at 3.005 ms. B (start 1 ms): 5e7 B at 25 GB/s
    // until 3.005 ms, the rest alone at 50 GB/s (1 ms): lands at 4.005 ms, 3.005 ms after start.
    const std::string text =
        simulate_apart(four_replicas(2), {{0, 2, 100'000'000, 0}, {1, 2, 100'000'000, 1 * kMs}});
    INFO(text);
    const auto d = durations(text);
    REQUIRE(d.size() == 2);
    CHECK(d[0].first == 0);
    CHECK(d[0].second == 3'005'000);
    CHECK(d[1].second == 3'005'000);
  }
  SECTION("different destinations on different nodes do not slow each other") {
    const std::string text = simulate_apart(
        four_replicas(2), {{0, 2, 100'000'000, 1 * kMs}, {1, 3, 100'000'000, 1 * kMs}});
    INFO(text);
    const auto d = durations(text);
    REQUIRE(d.size() == 2);
    CHECK(d[0].second == 2'005'000);
    CHECK(d[1].second == 2'005'000);
  }
}

TEST_CASE("one SimGrid simulation per process: a second platform is refused, children are not") {
  const std::string text = run_in_subprocess([] {
    auto first = ClusterPlatform::create(four_replicas(2));
    try {
      ClusterPlatform::create(four_replicas(2));
    } catch (const std::logic_error& e) {
      return std::string("refused: ") + e.what();
    }
    return std::string("accepted");
  });
  CHECK(text.rfind("refused: ", 0) == 0);
  CHECK(text.find("one per process") != std::string::npos);
  // Another child starts fresh.
  CHECK(simulate_apart(four_replicas(2), {{0, 2, 1000, 0}}).find("0:") != std::string::npos);
}

TEST_CASE("run_in_subprocess carries results and errors back") {
  CHECK(run_in_subprocess([] { return std::string(100'000, 'x'); }).size() == 100'000);
  CHECK_THROWS_WITH(run_in_subprocess([]() -> std::string { throw InputError("f.xml", 3, "bad"); }),
                    "f.xml:3: bad");
  CHECK_THROWS_AS(run_in_subprocess([]() -> std::string { throw InputError("x"); }), InputError);
  CHECK_THROWS_WITH(run_in_subprocess([]() -> std::string { throw std::runtime_error("boom"); }),
                    "boom");
  CHECK_THROWS_WITH(run_in_subprocess([]() -> std::string { std::abort(); }),
                    Catch::Contains("signal 6"));
}
