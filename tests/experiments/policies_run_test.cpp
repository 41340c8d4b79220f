// Every registered policy through the real binary on a 2,000-request slice of the Azure
// conversation trace: it completes with sane numbers, the load-aware schedulers land between the
// static extremes, the oracle matches full-block τ with no rejected draft, and the host overhead
// is charged exactly when a policy is synchronous (`sync=` and `--host-overhead-us` agree).
#include <map>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "experiments/run/run_experiment.hpp"
#include "policies/policy_registry.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {

const std::string kSlice =
    "run --trace traces/azure_conv_2023.csv --max-requests 2000 "
    "--profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-7 --seed 3 --quiet ";

nlohmann::json run_policy(const fs::path& dir, const std::string& name, const std::string& policy,
                          const std::string& extra = "") {
  const auto out = dir / name;
  const auto result =
      run_cli(kSlice + "--policy " + policy + " " + extra + " --out " + out.string(), dir);
  INFO(policy << ": " << result.output);
  REQUIRE(result.exit_code == 0);
  return read_json(out / "summary.json");
}

std::string without_wall_clock(nlohmann::json s) {
  for (const char* key : kWallClockKeys) s.erase(key);
  s.erase("policy");
  return s.dump();
}

}  // namespace

TEST_CASE("every policy completes a 2000-request slice with sane numbers") {
  const auto dir = scratch_dir("policies_slice");
  std::map<std::string, double> tau;
  for (const auto& row : policy_registry()) {
    const std::string name(row.name);
    const auto s = run_policy(dir, name, name);
    INFO(name);
    CHECK(s["requests_total"] == 2000);
    CHECK(s["requests_completed"].get<std::int64_t>() +
              s["requests_rejected_kv"].get<std::int64_t>() ==
          2000);
    const double t = s["tau_mean"].get<double>();
    CHECK(t >= 1.0);
    CHECK(t <= 8.0);
    const double budget = s["verify_tokens_per_request_step_mean"].get<double>();
    CHECK(budget >= 1.0);
    CHECK(budget <= 8.0);
    CHECK(s["rejected_draft_frac"].get<double>() >= 0.0);
    CHECK(s["rejected_draft_frac"].get<double>() < 1.0);
    CHECK(s["throughput_tok_s"].get<double>() > 0.0);
    tau[name] = t;
  }
  const auto k1 = run_policy(dir, "k1", "static:k=1");
  const auto k7 = run_policy(dir, "k7", "static:k=7");
  const double tau1 = k1["tau_mean"].get<double>();
  const double tau7 = k7["tau_mean"].get<double>();
  CHECK(tau1 < tau7);
  for (const char* name : {"greedy", "async-topk"}) {
    INFO(name << " tau " << tau[name] << " between " << tau1 << " and " << tau7);
    CHECK(tau[name] > tau1);
    CHECK(tau[name] <= tau7);
  }
  // The oracle verifies exactly what the target accepts: nothing verified is rejected, and each
  // step commits what full-block verification would (the draws depend on the request and its
  // step only), so τ equals static:k=7's.
  const auto oracle = run_policy(dir, "oracle_check", "oracle");
  CHECK(oracle["rejected_draft_frac"].get<double>() == 0.0);
  CHECK(oracle["tau_mean"].get<double>() == Approx(tau7).epsilon(1e-12));
  fs::remove_all(dir);
}

TEST_CASE("host overhead: paid by synchronous policies, overridable, reported in the config") {
  const auto dir = scratch_dir("policies_overhead");
  // greedy is synchronous by default: turning sync off or zeroing the overhead is the same run.
  const auto sync_off = run_policy(dir, "off", "greedy:sync=off");
  const auto zero = run_policy(dir, "zero", "greedy", "--host-overhead-us 0");
  CHECK(without_wall_clock(sync_off) == without_wall_clock(zero));
  CHECK(read_file(dir / "off" / "requests.csv") == read_file(dir / "zero" / "requests.csv"));
  // Paying it makes every step longer, so per-token latency rises.
  const auto paid = run_policy(dir, "paid", "greedy");
  CHECK(paid["tpot_ms"]["mean"].get<double>() > sync_off["tpot_ms"]["mean"].get<double>());
  // static is asynchronous by default: sync=on with a zero overhead changes nothing.
  const auto plain = run_policy(dir, "plain", "static:k=3");
  const auto forced = run_policy(dir, "forced", "static:k=3,sync=on", "--host-overhead-us 0");
  CHECK(without_wall_clock(plain) == without_wall_clock(forced));
  const auto config = read_json(dir / "forced" / "config.json");
  CHECK(config["host_overhead_us"].get<double>() == 0.0);
  CHECK(config["host_overhead_from_profile"] == false);
  CHECK(config["policy_synchronous"] == true);
  const auto profile_config = read_json(dir / "paid" / "config.json");
  CHECK(profile_config["host_overhead_us"].get<double>() == 150.0);
  CHECK(profile_config["host_overhead_from_profile"] == true);
  CHECK(read_json(dir / "plain" / "config.json")["policy_synchronous"] == false);
  // A negative or non-numeric override is a usage error (exit 2) that leaves no output.
  const auto bad = run_cli(
      kSlice + "--policy greedy --host-overhead-us -3 --out " + (dir / "bad").string(), dir);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--host-overhead-us"));
  CHECK_FALSE(fs::exists(dir / "bad"));
  fs::remove_all(dir);
}

TEST_CASE("policies and --policy help describe every row with its flags") {
  const auto dir = scratch_dir("policies_help");
  for (const std::string args : {"policies", "run --policy help"}) {
    const auto result = run_cli(args, dir);
    INFO(args << ": " << result.output);
    CHECK(result.exit_code == 0);
    for (const auto& row : policy_registry()) {
      CHECK_THAT(result.output, Catch::Contains(std::string(row.name)));
    }
    CHECK_THAT(result.output, Catch::Contains("[UNSAFE]"));
    CHECK_THAT(result.output, Catch::Contains("sync=auto|on|off"));
  }
  fs::remove_all(dir);
}
