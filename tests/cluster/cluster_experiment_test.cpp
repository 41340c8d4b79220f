// The API `sparksim plan` calls: options validated all at once, and clusters simulated in forked
// children as many times as needed in one process (SimGrid allows one simulation per process).
#include "experiments/run/cluster_experiment.hpp"

#include <catch2/catch.hpp>

#include "common/input_error.hpp"

using namespace sparksim;

namespace {

ClusterOptions golden(std::int64_t replicas) {
  ClusterOptions o;
  o.run.trace_path = "tests/experiments/golden/two_requests/trace.csv";
  o.run.profile_path = "tests/experiments/golden/two_requests/profile.json";
  o.run.drafter = "mtp1";
  o.run.acceptance = "bernoulli:p=1";
  o.replicas = replicas;
  return o;
}

}  // namespace

TEST_CASE("clusters run in forked children, many per process, each from one validated run") {
  const ClusterSetup one = prepare_cluster(golden(1));
  const ClusterResult first = execute_cluster_in_subprocess(one);
  // The golden scenario (tests/experiments/golden/two_requests/README.md): 8 tokens in 30 ms.
  CHECK(first.summary["requests_completed"] == 2);
  CHECK(first.summary["output_tokens"] == 8);
  CHECK(first.summary["sim_duration_s"].get<double>() == Approx(0.03));
  CHECK(first.requests_csv.rfind("request_id,", 0) == 0);
  CHECK(std::count(first.requests_csv.begin(), first.requests_csv.end(), '\n') == 3);

  // Two replicas from the same validated run: each request alone on its replica, so request 1
  // (arrives at 5 ms, prompt 50, output 3) no longer waits for request 0's step.
  ClusterOptions two = golden(2);
  const ClusterSetup split = prepare_cluster(one.run, two);
  const ClusterResult second = execute_cluster_in_subprocess(split);
  CHECK(second.summary["cluster"]["replicas"] == 2);
  CHECK(second.summary["gpus"] == 2);
  CHECK(second.summary["replicas"][1]["ttft_ms"]["mean"].get<double>() == Approx(10.0));
  CHECK(second.summary["sim_duration_s"].get<double>() == Approx(0.03));
}

TEST_CASE("cluster options are checked together with the run's, before any simulation") {
  ClusterOptions o = golden(0);
  o.run.drafter = "nonsense-3";
  o.router = "fastest";
  o.prefill_replicas = -1;
  o.nvlink_bandwidth_gb_s = -5;
  o.simgrid_config = {"nocolon"};
  try {
    prepare_cluster(o);
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("nonsense-3") != std::string::npos);
    CHECK(m.find("--replicas N (>= 1) is required") != std::string::npos);
    CHECK(m.find("unknown router 'fastest'") != std::string::npos);
    CHECK(m.find("--prefill-replicas must be >= 0") != std::string::npos);
    CHECK(m.find("--nvlink-bandwidth-gb-s must be a finite number > 0") != std::string::npos);
    CHECK(m.find("'nocolon' is not of the form key:value") != std::string::npos);
  }
  ClusterOptions file = golden(0);
  file.platform_path = "absent.xml";
  file.network_latency_us = 3;
  try {
    prepare_cluster(file);
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("absent.xml: cannot open platform file") != std::string::npos);
    CHECK(m.find("describe the built-in topology") != std::string::npos);
  }
}

TEST_CASE("a platform error in the child reaches the caller as an input error") {
  ClusterOptions o = golden(2);
  o.gpus_per_node = 1;
  o.prefill_replicas = 1;
  const ClusterSetup setup = prepare_cluster(o);
  ClusterSetup too_wide = setup;
  too_wide.platform.gpus_per_replica = 2;  // a replica wider than a node
  CHECK_THROWS_AS(execute_cluster_in_subprocess(too_wide), InputError);
  // The same layout with one-GPU replicas runs: prefill on node 0, decode on node 1, over NICs.
  const ClusterResult ok = execute_cluster_in_subprocess(setup);
  CHECK(ok.summary["cluster"]["kv_transfers"] == 2);
  CHECK(ok.summary["links"][0]["name"] == "node0-gpu0-nic_UP");
}
