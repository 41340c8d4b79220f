// ClusterPlatform: the built-in topology's placement, and a user's platform file: replicas in
// declaration order, and every way the file can be unusable reported as `path:line: what` before
// anything is simulated. Each scenario runs in a forked child (one SimGrid engine per process).
#include "sim/cluster/platform.hpp"

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "sim/cluster/subprocess.hpp"
#include "tests/traces/temp_dir.hpp"

using namespace sparksim;

namespace {

const std::string kHeader =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n";

// Line 4: the zone; 5-8: hosts router, z-prefill, a-decode, m-decode; 9-11: links; routes after.
std::string platform_file(const std::string& routes) {
  return kHeader +
         "  <zone id=\"cluster\" routing=\"Full\">\n"
         "    <host id=\"router\" speed=\"1Gf\"/>\n"
         "    <host id=\"z-prefill\" speed=\"1Gf\"/>\n"
         "    <host id=\"a-decode\" speed=\"1Gf\"/>\n"
         "    <host id=\"m-decode\" speed=\"1Gf\"/>\n"
         "    <link id=\"front\" bandwidth=\"10GBps\" latency=\"1us\"/>\n"
         "    <link id=\"fabric\" bandwidth=\"25GBps\" latency=\"3us\"/>\n"
         "    <link id=\"spare\" bandwidth=\"25GBps\" latency=\"3us\"/>\n" +
         routes +
         "  </zone>\n"
         "</platform>\n";
}

std::string route(const std::string& src, const std::string& dst, const std::string& link) {
  return "    <route src=\"" + src + "\" dst=\"" + dst + "\"><link_ctn id=\"" + link +
         "\"/></route>\n";
}

const std::string kAllRoutes =
    route("router", "z-prefill", "front") + route("router", "a-decode", "front") +
    route("router", "m-decode", "front") + route("z-prefill", "a-decode", "fabric") +
    route("z-prefill", "m-decode", "fabric");

// Creates the platform in a child; returns "ok <replicas>: <description>" or the error message.
std::string outcome(const PlatformSpec& spec) {
  try {
    return run_in_subprocess([&] {
      auto p = ClusterPlatform::create(spec);
      std::string hosts;
      for (std::size_t i = 0; i < p->replica_count(); ++i) hosts += p->replica_host_name(i) + " ";
      return "ok " + hosts + "| " + p->description();
    });
  } catch (const InputError& e) {
    return std::string("InputError: ") + e.what();
  }
}

}  // namespace

TEST_CASE("built-in topology: replicas fill nodes in order and never span two") {
  PlatformSpec spec;
  spec.replicas = 5;
  spec.gpus_per_replica = 2;  // tensor parallel 2: four replicas per 8-GPU node
  const std::string text = outcome(spec);
  INFO(text);
  CHECK(text.rfind("ok node0-gpu0 node0-gpu2 node0-gpu4 node0-gpu6 node1-gpu0 |", 0) == 0);
  CHECK(text.find("on 2 node(s) of 8 GPUs") != std::string::npos);
  spec.gpus_per_replica = 16;
  CHECK(outcome(spec).find("InputError: --gpus-per-node 8 cannot hold one replica of 16 GPUs") ==
        0);
}

TEST_CASE("platform file: replicas are the non-router hosts in declaration order") {
  const testing::TempDir dir;
  PlatformSpec spec;
  spec.platform_path = dir.write("ok.xml", platform_file(kAllRoutes));
  spec.prefill_replicas = 1;
  std::string text = outcome(spec);
  INFO(text);
  CHECK(text.rfind("ok z-prefill a-decode m-decode |", 0) == 0);
  spec.replicas = 2;
  CHECK(outcome(spec).rfind("ok z-prefill a-decode |", 0) == 0);
  spec.replicas = 4;
  CHECK(outcome(spec).find("--replicas 4 but the file has only 3 host(s)") != std::string::npos);
  spec.replicas = 0;
  spec.prefill_replicas = 3;
  CHECK(outcome(spec).find("leaves no decode replica") != std::string::npos);
}

TEST_CASE("bad platform files are reported with path and line before any simulation") {
  const testing::TempDir dir;
  PlatformSpec spec;
  SECTION("XML syntax") {
    std::string text = platform_file(kAllRoutes);
    const std::string closed = "m-decode\" speed=\"1Gf\"/>";
    text.replace(text.find(closed), closed.size(), "m-decode\" speed=\"1Gf\">");
    spec.platform_path = dir.write("syntax.xml", text);
    CHECK(outcome(spec).rfind("InputError: " + spec.platform_path + ":9: invalid SimGrid", 0) == 0);
  }
  SECTION("a value SimGrid cannot read") {
    std::string text = platform_file(kAllRoutes);
    text.replace(text.find("25GBps"), 6, "fast");
    spec.platform_path = dir.write("value.xml", text);
    CHECK(outcome(spec).find(spec.platform_path + ":10: invalid SimGrid platform") !=
          std::string::npos);
  }
  SECTION("a route through a link that does not exist points at the line naming it") {
    spec.platform_path =
        dir.write("link.xml", platform_file(kAllRoutes + route("a-decode", "m-decode", "nowhere")));
    CHECK(outcome(spec).find(spec.platform_path + ":17: invalid SimGrid platform: Link not "
                                                  "found: nowhere") != std::string::npos);
  }
  SECTION("no router host lists the hosts there are") {
    spec.platform_path = dir.write("ok.xml", platform_file(kAllRoutes));
    spec.router_host = "frontend";
    const std::string text = outcome(spec);
    CHECK(text.find("no host named 'frontend'") != std::string::npos);
    CHECK(text.find("hosts: router, z-prefill, a-decode, m-decode") != std::string::npos);
  }
  SECTION("missing file, or not XML") {
    spec.platform_path = dir.path().string() + "/absent.xml";
    CHECK(outcome(spec).find("absent.xml: cannot open platform file") != std::string::npos);
    spec.platform_path = dir.write("platform.lua", "-- not for us\n");
    CHECK(outcome(spec).find("must be SimGrid XML") != std::string::npos);
  }
}

TEST_CASE("a router or prefill replica that cannot reach a replica is an error naming both") {
  const testing::TempDir dir;
  PlatformSpec spec;
  SECTION("router") {
    spec.platform_path =
        dir.write("router.xml", platform_file(route("router", "z-prefill", "front") +
                                              route("router", "a-decode", "front")));
    const std::string text = outcome(spec);
    INFO(text);
    // Line 8 declares the host the router cannot reach.
    CHECK(text.rfind("InputError: " + spec.platform_path +
                         ":8: router host 'router' cannot reach 'm-decode' (no route)",
                     0) == 0);
  }
  SECTION("prefill to decode, only when disaggregated") {
    spec.platform_path =
        dir.write("pd.xml", platform_file(route("router", "z-prefill", "front") +
                                          route("router", "a-decode", "front") +
                                          route("router", "m-decode", "front") +
                                          route("z-prefill", "a-decode", "fabric")));
    CHECK(outcome(spec).rfind("ok ", 0) == 0);  // colocated: replicas never talk to each other
    spec.prefill_replicas = 1;
    CHECK(outcome(spec).find("prefill replica host 'z-prefill' cannot reach 'm-decode'") !=
          std::string::npos);
  }
}

TEST_CASE("SimGrid options are checked, not left to abort the process") {
  PlatformSpec spec;
  spec.replicas = 1;
  spec.simgrid_config = {"network/bogus:1"};
  CHECK(outcome(spec).find("--simgrid-cfg: 'network/bogus:1': Bad config key") !=
        std::string::npos);
  spec.simgrid_config = {"nocolon"};
  CHECK(outcome(spec).find("not of the form key:value") != std::string::npos);
  spec.simgrid_config = {"network/TCP-gamma:65536"};
  CHECK(outcome(spec).rfind("ok ", 0) == 0);
}
