// `sparksim cluster` end to end through the real binary (each run its own process, as SimGrid
// requires): one replica reproduces `sparksim run` exactly, round-robin replicas reproduce runs on
// their shares of the trace, disaggregated KV transfers take the times the network model gives
// (idle and shared links, hand-computed), and bad platforms or options exit 2 before simulating.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include <catch2/catch.hpp>

#include "experiments/run/run_experiment.hpp"
#include "tests/experiments/cli_harness.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {

const std::string kGolden = "tests/experiments/golden/two_requests/";

bool is_wall_key(const std::string& key) {
  for (const char* k : kWallClockKeys) {
    if (key == k) return true;
  }
  return false;
}

// Every key of `expected` (wall-clock keys aside) holds the same value in `actual`.
void check_same_keys(const nlohmann::json& expected, const nlohmann::json& actual,
                     const std::string& what) {
  for (const auto& [key, value] : expected.items()) {
    if (is_wall_key(key)) continue;
    INFO(what << ": " << key);
    REQUIRE(actual.contains(key));
    CHECK(actual[key] == value);
  }
}

// requests.csv rows without their request_id (a lone run numbers its own requests), sorted.
std::vector<std::string> rows_without_id(const std::string& csv) {
  std::vector<std::string> rows;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) rows.push_back(line.substr(line.find(',')));
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::string seconds(SimTime ns) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%lld.%09lld", static_cast<long long>(ns / 1'000'000'000),
                static_cast<long long>(ns % 1'000'000'000));
  return buffer;
}

std::vector<std::vector<std::string>> read_csv(const fs::path& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream cells_in(line);
    std::string cell;
    while (std::getline(cells_in, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

TEST_CASE("a one-replica cluster writes exactly what sparksim run writes") {
  const auto dir = scratch_dir("cluster_one");
  const std::string workloads[] = {
      "--trace traces/azure_code_2023.csv --max-requests 2000 --rate-scale 2",
      "--closed-loop-users 24 --synthetic rate=1,prompt=lognormal:900:1.0,"
      "output=lognormal:180:0.8,domain=math:0.5/code:0.5,duration_s=120"};
  int index = 0;
  for (const std::string& workload : workloads) {
    const std::string common =
        workload +
        " --profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-7"
        " --policy static:k=3 --seed 3 --quiet --out ";
    const auto run_dir = dir / ("run" + std::to_string(index));
    const auto cluster_dir = dir / ("cluster" + std::to_string(index));
    ++index;
    const auto run = run_cli("run " + common + run_dir.string(), dir);
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    const auto cluster = run_cli("cluster --replicas 1 " + common + cluster_dir.string(), dir);
    INFO(cluster.output);
    REQUIRE(cluster.exit_code == 0);
    INFO(workload);
    // Tolerance: none. Every summary field but the wall-clock ones is equal, byte for byte.
    const auto expected = read_json(run_dir / "summary.json");
    const auto actual = read_json(cluster_dir / "summary.json");
    check_same_keys(expected, actual, "summary");
    CHECK(expected["requests_completed"].get<int>() > 1000);
    check_same_keys(read_json(run_dir / "config.json"), read_json(cluster_dir / "config.json"),
                    "config");
    CHECK(read_file(run_dir / "requests.csv") == read_file(cluster_dir / "requests.csv"));
    CHECK(read_file(run_dir / "timeseries.csv") == read_file(cluster_dir / "timeseries.csv"));
    // The per-replica section of a one-replica cluster is the cluster.
    REQUIRE(actual["replicas"].size() == 1);
    auto replica = actual["replicas"][0];
    for (const char* key : {"replica", "host", "role"}) replica.erase(key);
    check_same_keys(replica, actual, "replica 0");
  }
  fs::remove_all(dir);
}

TEST_CASE("round-robin over 3 replicas equals 3 runs on the round-robin split of the trace") {
  const auto dir = scratch_dir("cluster_split");
  // A bursty hand-made trace: the first three rows at t = 0 so every share starts at 0 (loaders
  // rebase a trace to its first arrival); a small KV capacity so replicas preempt and refuse.
  std::string all = "arrival_s,prompt_tokens,output_tokens,domain\n";
  std::string shares[3];
  for (auto& s : shares) s = all;
  std::uint64_t x = 12345;
  auto next = [&x](std::uint64_t bound) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (x >> 33) % bound;
  };
  const char* domains[] = {"math", "code", "chat"};
  SimTime arrival = 0;
  for (int i = 0; i < 600; ++i) {
    if (i >= 3) arrival += static_cast<SimTime>(next(60'000'000));  // up to 60 ms apart
    // One prompt in 40 is longer than the KV capacity allows with its output: refused.
    const std::uint64_t prompt = next(40) == 0 ? 39'000 + next(3000) : 1 + next(6000);
    const std::string row = seconds(arrival) + "," + std::to_string(prompt) + "," +
                            std::to_string(1 + next(500)) + "," + domains[next(3)] + "\n";
    all += row;
    shares[i % 3] += row;
  }
  std::ofstream(dir / "all.csv") << all;
  const std::string common =
      " --profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-5 --policy static:k=2"
      " --acceptance bernoulli:p=1 --kv-capacity-tokens 40000 --seed 5 --quiet --out ";
  const auto cluster = run_cli("cluster --replicas 3 --router round-robin --trace " +
                                   (dir / "all.csv").string() + common + (dir / "c").string(),
                               dir);
  INFO(cluster.output);
  REQUIRE(cluster.exit_code == 0);
  const auto summary = read_json(dir / "c" / "summary.json");
  std::vector<std::string> split_rows;
  std::int64_t preemptions = 0, rejected = 0;
  for (int k = 0; k < 3; ++k) {
    const auto share = dir / ("share" + std::to_string(k) + ".csv");
    std::ofstream(share) << shares[k];
    // Appended, not `"r" + std::to_string(k)` and `"run --trace " + share.string()`: GCC 12 warns
    // falsely (-Wrestrict) on a literal + a temporary string here.
    auto out = dir / "r";
    out += std::to_string(k);
    std::string args = "run --trace ";
    args += share.string();
    args += common;
    args += out.string();
    const auto run = run_cli(args, dir);
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    const auto expected = read_json(out / "summary.json");
    const auto& replica = summary["replicas"][k];
    // Exact: every metric of the replica equals its lone run's (acceptance p=1 draws nothing at
    // random, so request numbering, global in the cluster and local in a run, cannot matter).
    for (const auto& [key, value] : replica.items()) {
      if (key == "replica" || key == "host" || key == "role") continue;
      INFO("replica " << k << ": " << key);
      REQUIRE(expected.contains(key));
      CHECK(value == expected[key]);
    }
    preemptions += expected["preemptions"].get<std::int64_t>();
    rejected += expected["requests_rejected_kv"].get<std::int64_t>();
    for (auto& row : rows_without_id(read_file(out / "requests.csv"))) split_rows.push_back(row);
  }
  std::sort(split_rows.begin(), split_rows.end());
  CHECK(rows_without_id(read_file(dir / "c" / "requests.csv")) == split_rows);
  CHECK(preemptions > 0);
  CHECK(rejected > 0);
  CHECK(summary["requests_rejected_kv"] == rejected);
  fs::remove_all(dir);
}

TEST_CASE("KV transfers take latency + bytes / bandwidth when alone and slow down when sharing") {
  const auto dir = scratch_dir("cluster_kv");
  // Prefill hosts p0, p1 (links 100 GB/s, 2 us) send to decode host d0 through d0-down (25 GB/s,
  // 3 us): a route of 5 us whose bottleneck is 25 GB/s. KV is 1e5 B/token (the golden profile),
  // so a 1000-token prompt moves 1e8 B: 4 ms + 5 us on an idle route.
  std::ofstream(dir / "pd.xml")
      << "<?xml version='1.0'?>\n"
         "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\">\n"
         "  <zone id=\"pd\" routing=\"Full\">\n"
         "    <host id=\"router\" speed=\"1Gf\"/>\n"
         "    <host id=\"p0\" speed=\"1Gf\"/>\n"
         "    <host id=\"p1\" speed=\"1Gf\"/>\n"
         "    <host id=\"d0\" speed=\"1Gf\"/>\n"
         "    <link id=\"front\" bandwidth=\"10GBps\" latency=\"1us\"/>\n"
         "    <link id=\"p0-up\" bandwidth=\"100GBps\" latency=\"2us\"/>\n"
         "    <link id=\"p1-up\" bandwidth=\"100GBps\" latency=\"2us\"/>\n"
         "    <link id=\"d0-down\" bandwidth=\"25GBps\" latency=\"3us\"/>\n"
         "    <route src=\"router\" dst=\"p0\"><link_ctn id=\"front\"/></route>\n"
         "    <route src=\"router\" dst=\"p1\"><link_ctn id=\"front\"/></route>\n"
         "    <route src=\"router\" dst=\"d0\"><link_ctn id=\"front\"/></route>\n"
         "    <route src=\"p0\" dst=\"d0\" symmetrical=\"NO\"><link_ctn id=\"p0-up\"/>"
         "<link_ctn id=\"d0-down\"/></route>\n"
         "    <route src=\"p1\" dst=\"d0\" symmetrical=\"NO\"><link_ctn id=\"p1-up\"/>"
         "<link_ctn id=\"d0-down\"/></route>\n"
         "  </zone>\n"
         "</platform>\n";
  // Steps last 10 ms. Round-robin over the prefill pool: 0 → p0 alone; 1 → p1 and 2 → p0 prefill
  // together and transfer at once; 3 → p1 and 4 → p0 start 2 ms apart.
  std::ofstream(dir / "trace.csv") << "arrival_s,prompt_tokens,output_tokens,domain\n"
                                      "0,1000,5,chat\n"
                                      "1,1000,5,chat\n"
                                      "1,1000,5,chat\n"
                                      "2,1000,5,chat\n"
                                      "2.002,1000,5,chat\n";
  const auto result = run_cli(
      "cluster --platform " + (dir / "pd.xml").string() + " --prefill-replicas 2 --trace " +
          (dir / "trace.csv").string() + " --profile " + kGolden +
          "profile.json --drafter mtp1 --policy static:k=1 --acceptance bernoulli:p=1 --out " +
          (dir / "out").string(),
      dir);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const auto transfers = read_csv(dir / "out" / "transfers.csv");
  REQUIRE(transfers.size() == 6);
  CHECK(transfers[0][0] == "request_id");
  CHECK(transfers[0][8] == "duration_ms");
  std::map<std::string, std::vector<std::string>> by_request;
  for (std::size_t i = 1; i < transfers.size(); ++i) by_request[transfers[i][0]] = transfers[i];
  // Alone: 1e8 B / 25e9 B/s + 5 us, exactly; the idle-route formula column agrees.
  CHECK(by_request["0"][8] == "4.005000");
  CHECK(by_request["0"][11] == "4.005000000");
  CHECK(by_request["0"][5] == "100000000");
  CHECK(by_request["0"][6] == "0.010000000");  // leaves when its prefill step ends
  // Two at once on d0-down: each at 12.5 GB/s for 1e8 B.
  CHECK(by_request["1"][8] == "8.005000");
  CHECK(by_request["2"][8] == "8.005000");
  // Staggered by 2 ms: 3 runs alone for 2 ms (5e7 B), shares for 4 ms (5e7 B) → 6.005 ms;
  // 4 shares for 4 ms (5e7 B), then alone for 2 ms (5e7 B) → 6.005 ms.
  CHECK(by_request["3"][8] == "6.005000");
  CHECK(by_request["4"][8] == "6.005000");
  // TTFT includes the transfer: request 0's first token reaches the user when its KV lands.
  const auto requests = read_csv(dir / "out" / "requests.csv");
  for (const auto& row : requests) {
    if (row[0] != "0") continue;
    CHECK(row[9] == "14.005000");     // ttft_ms: 10 ms prefill + 4.005 ms transfer
    CHECK(row[11] == "0.034005000");  // e2e_s: then two 10 ms decode steps (2 tokens each)
    CHECK(row[18] == "1000");         // prefill tokens computed (on p0)
  }
  const auto summary = read_json(dir / "out" / "summary.json");
  CHECK(summary["requests_completed"] == 5);
  CHECK(summary["cluster"]["kv_transfers"] == 5);
  CHECK(summary["cluster"]["kv_transfer_bytes"] == 500'000'000);
  CHECK(summary["replicas"][0]["role"] == "prefill");
  CHECK(summary["replicas"][2]["role"] == "decode");
  CHECK(summary["replicas"][2]["host"] == "d0");
  bool saw_d0 = false;
  for (const auto& link : summary["links"]) {
    if (link["name"] != "d0-down") continue;
    saw_d0 = true;
    CHECK(link["transfers"] == 5);
    CHECK(link["bytes"] == 500'000'000);
    CHECK(link["bandwidth_gb_s"].get<double>() == Approx(25.0));
    // Busy while anything crosses it: 4.005 ms (request 0), 8.005 ms (1 and 2 together) and
    // 2.010-2.018005 s (3 and 4 overlapping): 20.015 ms.
    CHECK(link["busy_s"].get<double>() == Approx(0.020015).margin(1e-12));
  }
  CHECK(saw_d0);
  fs::remove_all(dir);
}

TEST_CASE("bad platforms and options exit 2 before simulating and leave no output") {
  const auto dir = scratch_dir("cluster_bad");
  const std::string workload = " --trace " + kGolden + "trace.csv --profile " + kGolden +
                               "profile.json --drafter mtp1 --out " + (dir / "out").string();
  const std::string header =
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n";
  std::ofstream(dir / "broken.xml") << header +
                                           "  <zone id=\"z\" routing=\"Full\">\n"
                                           "    <host id=\"router\" speed=\"1Gf\">\n"
                                           "  </zone>\n"
                                           "</platform>\n";
  std::ofstream(dir / "unreachable.xml")
      << header +
             "  <zone id=\"z\" routing=\"Full\">\n"
             "    <host id=\"router\" speed=\"1Gf\"/>\n"
             "    <host id=\"gpu0\" speed=\"1Gf\"/>\n"
             "    <host id=\"gpu1\" speed=\"1Gf\"/>\n"
             "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
             "    <route src=\"router\" dst=\"gpu0\"><link_ctn id=\"l\"/></route>\n"
             "  </zone>\n"
             "</platform>\n";
  // SimGrid aborts on an unknown routing model instead of throwing (a fuzzer finding, kept in
  // fuzz/regressions/platform_unknown_routing.xml); sparksim must still exit 2 with the path.
  std::ofstream(dir / "routing.xml") << header +
                                            "  <zone id=\"z\" routing=\"F ull\">\n"
                                            "    <host id=\"router\" speed=\"1Gf\"/>\n"
                                            "  </zone>\n"
                                            "</platform>\n";
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"cluster --platform " + (dir / "routing.xml").string(),
       (dir / "routing.xml").string() + ": SimGrid could not load this platform"},
      {"cluster --platform " + (dir / "broken.xml").string(),
       (dir / "broken.xml").string() + ":6: invalid SimGrid platform"},
      {"cluster --platform " + (dir / "unreachable.xml").string(),
       (dir / "unreachable.xml").string() +
           ":7: router host 'router' cannot reach 'gpu1' (no route)"},
      {"cluster --platform " + (dir / "missing.xml").string(), "cannot open platform file"},
      {"cluster --replicas 2 --router fastest",
       "unknown router 'fastest'; valid: round-robin, least-loaded, kv-aware"},
      {"cluster --replicas 2 --simgrid-cfg network/nonsense:1", "Bad config key"},
  };
  for (const Case& c : cases) {
    const auto result = run_cli(c.args + workload, dir);
    INFO(c.args << "\n" << result.output);
    CHECK(result.exit_code == 2);
    CHECK(result.output.find(c.message) != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out"));
  }
  // Several problems are reported together.
  const auto many = run_cli(
      "cluster --replicas 0 --prefill-replicas 1 --prefill separate --router nope" + workload, dir);
  CHECK(many.exit_code == 2);
  CHECK(many.output.find("--replicas N (>= 1) is required") != std::string::npos);
  CHECK(many.output.find("exclude each other") != std::string::npos);
  CHECK(many.output.find("unknown router 'nope'") != std::string::npos);
  const auto help = run_cli("cluster --router help", dir);
  CHECK(help.exit_code == 0);
  CHECK(help.output.find("fewest outstanding tokens") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("cluster runs are deterministic and conserve requests under every router") {
  const auto dir = scratch_dir("cluster_determinism");
  const std::string common =
      " --trace traces/azure_code_2023.csv --max-requests 1500 --rate-scale 6"
      " --profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-7 --policy static:k=3"
      " --replicas 6 --prefill-replicas 2 --gpus-per-node 4 --quiet --out ";
  for (const char* router : {"round-robin", "least-loaded", "kv-aware"}) {
    INFO(router);
    for (const char* name : {"a", "b"}) {
      const auto result =
          run_cli(std::string("cluster --router ") + router + common + (dir / name).string(), dir);
      INFO(result.output);
      REQUIRE(result.exit_code == 0);
    }
    auto a = read_json(dir / "a" / "summary.json");
    auto b = read_json(dir / "b" / "summary.json");
    for (const char* key : kWallClockKeys) {
      a.erase(key);
      b.erase(key);
    }
    CHECK(a == b);
    for (const char* file : {"requests.csv", "timeseries.csv", "transfers.csv", "placement.csv"}) {
      INFO(file);
      CHECK(read_file(dir / "a" / file) == read_file(dir / "b" / file));
    }
    CHECK(a["requests_completed"].get<std::int64_t>() +
              a["requests_rejected_kv"].get<std::int64_t>() ==
          a["requests_total"].get<std::int64_t>());
    std::int64_t decoded = 0, transfers_in = 0;
    for (const auto& r : a["replicas"]) {
      if (r["role"] == "decode") {
        decoded += r["requests_completed"].get<std::int64_t>();
        transfers_in += r["requests_total"].get<std::int64_t>();
      }
    }
    CHECK(transfers_in == a["cluster"]["kv_transfers"].get<std::int64_t>());
    CHECK(decoded <= a["requests_completed"].get<std::int64_t>());
    // Inter-node hand-offs (prefill on node 0, decode replicas 4 and 5 on node 1) cross NICs.
    bool nic = false;
    for (const auto& link : a["links"])
      nic = nic || link["name"].get<std::string>().find("nic") != std::string::npos;
    CHECK(nic);
  }
  fs::remove_all(dir);
}
