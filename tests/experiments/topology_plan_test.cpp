// `sparksim plan` across replica topologies, through the real binary, against answers worked by
// hand: memory feasibility of DeepSeek-V4-Flash on H100 (only dep8 and up fit), and a speed tier
// that a closed form says needs a given replica count per topology (linear step times, requests
// in lockstep); bad topologies exit 2 and write nothing.
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

TEST_CASE("plan refuses V4-Flash topologies that do not fit an H100 and picks dep8",
          "[plan][moe]") {
  // By hand (docs/moe.md numbers): usable 80 GB x 0.9 = 72 GB per GPU. dep4: routed FP8 experts
  // 277.0 GB / 4 = 69.25 GB + dense 9.35 GB = 78.6 GB > 72: does not fit. dep8: 34.6 + 9.35 GB
  // + 0.81 GB of windows leaves ~27 GB of KV. One dep8 replica (8 GPUs) carries this light load
  // (any TTFT), so dep16 (16 GPUs at least) loses on GPUs.
  const auto dir = scratch_dir("plan_topology_memory");
  const CliResult r = run_cli(
      "plan --target deepseek-v4-flash --gpu h100 --topologies dep4 dep8 dep16 "
      "--synthetic rate=20,prompt=fixed:64,output=fixed:8,domain=chat,duration_s=2 "
      "--slo \"ttft_p99_ms<=1000000\" --policies mtp1+static:k=1 --date 2026-11-25 --git-sha abc "
      "--out '" +
          (dir / "plan").string() + "'",
      dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("topology for mtp1 + static:k=1: dep8 (fewest GPUs: 1 x "
                                       "dep8 = 8 GPUs)"));
  const CsvTable t = CsvTable::parse(read_file(dir / "plan" / "topology.csv"), "topology.csv");
  REQUIRE(t.rows() == 3);
  CHECK(t.cell(0, t.column("topology")) == "dep4");
  CHECK(t.cell(0, t.column("status")) == "infeasible_memory");
  CHECK_THAT(t.cell(0, t.column("why")),
             Catch::Contains("dep4 (fp8 experts) does not fit deepseek-v4-flash on h100"));
  CHECK(t.cell(1, t.column("status")) == "chosen");
  CHECK(t.integer(1, t.column("gpus")) == 8);
  CHECK(t.integer(1, t.column("engines")) == 8);  // eight attention data-parallel ranks
  CHECK(t.cell(2, t.column("status")) == "more_gpus");
  CHECK(t.cell(2, t.column("why")) == "1 x dep16 = 16 GPUs > 8 (dep8)");
  // The composed profile is exactly what profile moe writes for that topology.
  CHECK_FALSE(fs::exists(dir / "plan" / "profiles" / "dep4.json"));
  const CliResult made = run_cli(
      "profile moe --target deepseek-v4-flash --gpu h100 --topology dep8 --date 2026-11-25 "
      "--git-sha abc --out '" +
          (dir / "dep8.json").string() + "'",
      dir);
  REQUIRE(made.exit_code == 0);
  CHECK(read_file(dir / "plan" / "profiles" / "dep8.json") == read_file(dir / "dep8.json"));
  fs::remove_all(dir);
}

TEST_CASE("plan's topology choice matches a closed-form speed tier", "[plan]") {
  // 12 requests arrive together (1-token prompts, 101 output tokens, no drafter); round-robin
  // gives each engine ceil(12 / E) of them, decoding in lockstep at 1 / (a + b·R) tok/s each.
  // Tier: tok_s_per_user_p1 >= 45, i.e. a step of at most 22.2 ms.
  //   dep1 on (a, b) = (10, 5) ms: R <= 2 -> E >= 6 engines = 6 replicas = 6 GPUs (5 miss: R = 3).
  //   dep4 on the same profile: 1 replica has E = 4, R = 3 (25 ms): misses; --max-gpus 6 allows
  //   no second replica, so the SLO is missed within the search.
  //   tp2 on (5, 2.5) ms per 2 GPUs: R <= 6 -> E >= 2 replicas = 4 GPUs (1 misses: R = 12).
  // So tp2 wins with 4 GPUs; dep1 loses on GPUs (6 > 4); dep4 misses the SLO.
  const auto dir = scratch_dir("plan_topology_closed_form");
  write_profile(linear_step_profile(10'000, 5'000, 1), (dir / "one_gpu.json").string());
  write_profile(linear_step_profile(5'000, 2'500, 2), (dir / "two_gpu.json").string());
  {
    std::ofstream trace(dir / "burst.csv");
    trace << "arrival_s,prompt_tokens,output_tokens,domain\n";
    for (int i = 0; i < 12; ++i) trace << "0.0,1,101,chat\n";
  }
  const CliResult r = run_cli(
      "plan --trace '" + (dir / "burst.csv").string() +
          "' --topology-profile dep1=" + (dir / "one_gpu.json").string() +
          " dep4=" + (dir / "one_gpu.json").string() + " tp2=" + (dir / "two_gpu.json").string() +
          " --max-gpus 6 --slo \"tok_s_per_user_p1>=45\" --policies none+static:k=1 "
          "--out '" +
          (dir / "plan").string() + "'",
      dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const CsvTable t = CsvTable::parse(read_file(dir / "plan" / "topology.csv"), "topology.csv");
  REQUIRE(t.rows() == 3);
  CHECK(t.cell(0, t.column("topology")) == "dep1");
  CHECK(t.cell(0, t.column("status")) == "more_gpus");
  CHECK(t.integer(0, t.column("replicas")) == 6);
  CHECK(t.cell(0, t.column("why")) == "6 x dep1 = 6 GPUs > 4 (tp2)");
  CHECK(t.cell(1, t.column("status")) == "slo_missed");
  CHECK_THAT(t.cell(1, t.column("why")), Catch::Contains("with up to 1 replicas (4 GPUs)"));
  CHECK(t.cell(2, t.column("status")) == "chosen");
  CHECK(t.integer(2, t.column("replicas")) == 2);
  CHECK(t.integer(2, t.column("gpus")) == 4);
  // The per-user speeds the search saw are the closed form's: 1e3 / (a + b·R) with R per engine.
  const CsvTable s = CsvTable::parse(read_file(dir / "plan" / "search.csv"), "search.csv");
  int checked = 0;
  for (std::size_t i = 0; i < s.rows(); ++i) {
    const std::string topology = s.cell(i, s.column("topology"));
    const auto engines = s.integer(i, s.column("engines"));
    const double a = topology == "tp2" ? 5 : 10, b = topology == "tp2" ? 2.5 : 5;
    const double slowest = 1e3 / (a + b * static_cast<double>((12 + engines - 1) / engines));
    INFO(s.raw_row(i));
    CHECK(s.number(i, s.column("tok_s_per_user_p1")) == Approx(slowest).epsilon(1e-6));
    CHECK(s.integer(i, s.column("meets")) == (slowest >= 45 ? 1 : 0));
    ++checked;
  }
  CHECK(checked >= 5);  // dep1 at 1, 2, 4, 5 (or 3) and 6; dep4 at 1; tp2 at 1 and 2
  fs::remove_all(dir);
}

TEST_CASE("plan refuses bad topologies before simulating and writes nothing", "[plan][moe]") {
  const auto dir = scratch_dir("plan_topology_bad");
  write_profile(linear_step_profile(10'000, 5'000, 1), (dir / "one_gpu.json").string());
  Profile heavy = linear_step_profile(1'000, 500, 1);
  heavy.weights_bytes = 75e9;  // > 80 GB x 0.9 = 72 GB usable: the loader refuses it
  write_profile(heavy, (dir / "heavy.json").string());
  struct Case {
    std::string args, message;
  };
  const std::string one = (dir / "one_gpu.json").string();
  const Case cases[] = {
      {"--target deepseek-v4-flash --gpu h200 --topologies dep8 ep8",
       "--topologies: 'ep8' is not a topology"},
      {"--target deepseek-v4-flash --gpu h200 --topologies dep12",
       "does not divide deepseek-v4-flash's 256"},
      {"--topologies dep8", "--topologies: give --target"},
      {"--target deepseek-v4-flash --gpu h200 --topologies dep8 dep8", "dep8 is given twice"},
      {"--topology-profile tp2=" + one, "gpus is 1 but tp2 needs a profile of 2"},
      {"--topology-profile dep0=" + one, "'dep0' is not a topology"},
      {"--topology-profile dep2=" + (dir / "heavy.json").string(),
       "heavy.json:15: memory.weights_bytes is 75000000000; leaves no room for a KV cache"},
      {"--topology-profile dep12=profiles/telemetry/deepseek-v4-flash.json",
       "does not divide deepseek-v4-flash's 256"},
      {"--topology-profile dep8=" + (dir / "missing.json").string(), "missing.json"},
      {"--topology-profile dep8=" + one + " --profile " + one,
       "--profile: with --topologies or --topology-profile each topology has its own"},
  };
  for (const Case& c : cases) {
    const CliResult r = run_cli(
        "plan --synthetic rate=5,prompt=fixed:64,output=fixed:8,duration_s=2 "
        "--slo \"ttft_p99_ms<=1000\" --policies mtp1+static:k=1 " +
            c.args + " --out '" + (dir / "plan").string() + "'",
        dir);
    INFO(c.args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(c.message));
    CHECK_FALSE(fs::exists(dir / "plan"));
  }
  fs::remove_all(dir);
}
