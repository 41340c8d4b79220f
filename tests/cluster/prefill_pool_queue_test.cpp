// The disaggregated prefill pool as a queue, through the real binary: one prefill engine that
// takes one prompt per step of constant length S is a single deterministic server, so each
// request's TTFT follows Lindley's recursion over its arrival (start_k = max(arrival_k,
// start_{k-1} + S); TTFT = start + S - arrival + the idle-link KV transfer), deterministic
// arrivals faster than S queue by the D/D/1 closed form, and Poisson arrivals wait on average
// what the M/D/1 formula (Pollaczek-Khinchine) says. Also: a pool of 0 decode replicas or a
// negative pool is refused with exit 2 and nothing written.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "common/csv_table.hpp"
#include "profiles/profile_io.hpp"
#include "tests/experiments/cli_harness.hpp"
#include "tests/sim/test_profiles.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {

constexpr double kStepMs = 10.0;  // every step, whatever it holds
constexpr int kPrompt = 100;      // tokens; --max-batch-tokens 100: one prompt per step
constexpr double kKvBytesPerToken = 1e5;
// Idle NVLink route (both engines on node 0): 1 us latency + 100 x 1e5 B at 450 GB/s.
constexpr double kTransferMs = 1e-3 + kPrompt * kKvBytesPerToken / 450e9 * 1e3;

void write_constant_profile(const fs::path& path) {
  Profile p = testing::constant_step_profile(kStepMs * 1e3);
  p.kv_bytes_per_token = kKvBytesPerToken;
  write_profile(p, path.string());
}

struct Served {
  std::vector<double> arrival_ms, ttft_ms;
};

// Runs 1 prefill + 1 decode engine on `workload`; returns the requests in arrival order.
Served serve(const fs::path& dir, const std::string& workload) {
  const CliResult r = run_cli("cluster --replicas 2 --prefill-replicas 1 --profile '" +
                                  (dir / "constant.json").string() + "' " + workload +
                                  " --drafter none --policy static:k=1 --max-batch-tokens 100 "
                                  "--quiet --out '" +
                                  (dir / "out").string() + "'",
                              dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const CsvTable t = CsvTable::parse(read_file(dir / "out" / "requests.csv"), "requests.csv");
  std::vector<std::pair<double, double>> rows;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    rows.emplace_back(t.number(i, t.column("arrival_s")) * 1e3, t.number(i, t.column("ttft_ms")));
  }
  std::stable_sort(rows.begin(), rows.end());
  Served s;
  for (const auto& [a, ttft] : rows) {
    s.arrival_ms.push_back(a);
    s.ttft_ms.push_back(ttft);
  }
  return s;
}

}  // namespace

TEST_CASE("deterministic arrivals faster than the prefill step queue as D/D/1", "[cluster]") {
  const auto dir = scratch_dir("prefill_pool_dd1");
  write_constant_profile(dir / "constant.json");
  // 20 prompts 4 ms apart, S = 10 ms: prompt k starts at k·S, so TTFT_k = (k + 1)·S - 4k ms.
  {
    std::ofstream trace(dir / "even.csv");
    trace << "arrival_s,prompt_tokens,output_tokens,domain\n";
    for (int k = 0; k < 20; ++k) trace << k * 0.004 << "," << kPrompt << ",2,chat\n";
  }
  const Served s = serve(dir, "--trace '" + (dir / "even.csv").string() + "'");
  REQUIRE(s.ttft_ms.size() == 20);
  for (int k = 0; k < 20; ++k) {
    INFO("request " << k);
    CHECK(s.ttft_ms[k] == Approx((k + 1) * kStepMs - 4.0 * k + kTransferMs).margin(2e-3));
  }
  fs::remove_all(dir);
}

TEST_CASE(
    "Poisson arrivals at the prefill pool wait as M/D/1 and per request as Lindley's "
    "recursion",
    "[cluster]") {
  const auto dir = scratch_dir("prefill_pool_md1");
  write_constant_profile(dir / "constant.json");
  // rho = 50/s x 10 ms = 0.5: the mean wait is rho·S / (2 (1 - rho)) = 5 ms.
  const Served s = serve(dir,
                         "--synthetic rate=50,prompt=fixed:100,output=fixed:2,domain=chat,"
                         "duration_s=120 --seed 7");
  REQUIRE(s.ttft_ms.size() > 5000);
  double start_prev = -1e18, wait_sum = 0;
  for (std::size_t k = 0; k < s.ttft_ms.size(); ++k) {
    const double start = std::max(s.arrival_ms[k], start_prev + kStepMs);
    start_prev = start;
    const double wait = start - s.arrival_ms[k];
    wait_sum += wait;
    INFO("request " << k << " arriving at " << s.arrival_ms[k] << " ms");
    // arrival_s is printed to the microsecond: the recursion inherits up to 1 us per rounding.
    REQUIRE(s.ttft_ms[k] == Approx(wait + kStepMs + kTransferMs).margin(5e-3));
  }
  const double mean_wait = wait_sum / static_cast<double>(s.ttft_ms.size());
  const double rho = 50 * kStepMs / 1e3;
  const double md1_wait = rho * kStepMs / (2 * (1 - rho));
  // ~6000 correlated waits (relaxation ~1 / (1 - rho)^2 = 4 customers): standard error ~3% of
  // the mean; 12% is four of them. M/M/1 would give 10 ms, no queueing 0.
  WARN("prefill pool: " << s.ttft_ms.size() << " requests, mean wait " << mean_wait << " ms; M/D/1 "
                        << md1_wait << " ms");
  CHECK(mean_wait == Approx(md1_wait).epsilon(0.12));
  fs::remove_all(dir);
}

TEST_CASE("a prefill pool leaving no decode replica, or a negative one, is refused", "[cluster]") {
  const auto dir = scratch_dir("prefill_pool_bad");
  write_constant_profile(dir / "constant.json");
  for (const std::string pool :
       {"--replicas 2 --prefill-replicas 2", "--replicas 2 --prefill-replicas -1"}) {
    const CliResult r =
        run_cli("cluster " + pool + " --profile '" + (dir / "constant.json").string() +
                    "' --synthetic rate=5,prompt=fixed:10,output=fixed:2,"
                    "duration_s=1 --out '" +
                    (dir / "out").string() + "'",
                dir);
    INFO(pool << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("--prefill-replicas"));
    CHECK_FALSE(fs::exists(dir / "out"));
  }
  fs::remove_all(dir);
}
