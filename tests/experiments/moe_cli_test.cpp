// DeepSeek-V4 commands through the real binary: `profile moe` and `profile telemetry` on the
// issue's bad inputs (unknown topology, expert-parallel size not dividing the experts, a topology
// that does not fit, telemetry with fewer than three points or non-monotone concurrency) exit 2
// with the problem named and write nothing; a good `profile moe` run writes a profile that `run`
// uses.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/experiments/cli_harness.hpp"

namespace sparksim::testing {
namespace {

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// A command line's tail and the text its refusal must contain.
struct Refusal {
  std::string args, message;
};

// Each `base + args` exits 2, names its problem and writes nothing under dir/out.
void check_refusals(const std::string& base, const std::vector<Refusal>& cases,
                    const std::filesystem::path& dir) {
  for (const Refusal& c : cases) {
    const CliResult r = run_cli(base + c.args, dir);
    INFO(c.args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(c.message) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
  }
}

TEST_CASE("profile moe refuses bad topologies with exit 2 and writes nothing", "[cli][moe]") {
  const auto dir = scratch_dir("moe_bad_topology");
  const auto out = dir / "out" / "v4.json";
  const std::string base = "profile moe --gpu h200 --out '" + out.string() + "' ";
  check_refusals(
      base,
      {
          {"--target deepseek-v4-flash --topology ep8", "'ep8' is not a topology"},
          {"--target deepseek-v4-flash --topology dep12",
           "does not divide deepseek-v4-flash's 256"},
          {"--target deepseek-v4-pro --topology dep8",
           "dep8 (fp8 experts) does not fit deepseek-v4-pro on h200-sxm"},
          {"--target deepseek-v4-flash --topology dep8 --expert-format fp16", "--expert-format"},
          {"--target qwen3-8b --topology dep8", "not a mixture-of-experts target"},
      },
      dir);
}

TEST_CASE("profile moe writes a per-GPU profile that sparksim run simulates", "[cli][moe]") {
  const auto dir = scratch_dir("moe_profile_run");
  const auto profile = dir / "flash.json";
  const CliResult made = run_cli(
      "profile moe --target deepseek-v4-flash --gpu h100 --topology "
      "dep16 --expert-format fp4 --two-batch-overlap --out '" +
          profile.string() + "'",
      dir);
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  const auto p = read_json(profile);
  CHECK(p["provenance"]["source"] == "analytic");
  CHECK(p["gpus"] == 1);
  CHECK(p["target"] == "deepseek-v4-flash");
  const CliResult run =
      run_cli("run --profile '" + profile.string() +
                  "' --closed-loop-users 32 --synthetic "
                  "rate=1,prompt=fixed:256,output=fixed:64,domain=chat,duration_s=5 --drafter mtp1 "
                  "--policy static:k=1 --out '" +
                  (dir / "run").string() + "'",
              dir);
  INFO(run.output);
  CHECK(run.exit_code == 0);
  const auto summary = read_json(dir / "run" / "summary.json");
  CHECK(summary["requests_completed"].get<int>() > 0);
}

TEST_CASE("profile telemetry refuses bad telemetry with exit 2 and writes nothing", "[cli][moe]") {
  const auto dir = scratch_dir("moe_bad_telemetry");
  const auto out = dir / "out" / "t.json";
  const std::string head =
      "{\n  \"schema\": \"sparksim.telemetry/1\",\n  \"source\": \"test\",\n"
      "  \"target\": \"deepseek-v4-flash\",\n  \"baseline_drafter\": \"mtp1\",\n";
  write_text(dir / "two.json",
             head +
                 "  \"throughput_tok_s_per_gpu_vs_concurrency_per_gpu\": [[50, 5100], "
                 "[100, 8800]]\n}\n");
  write_text(dir / "unordered.json",
             head +
                 "  \"throughput_tok_s_per_gpu_vs_concurrency_per_gpu\": [\n    [50, 5100],\n"
                 "    [150, 11600],\n    [100, 8800]\n  ]\n}\n");
  write_text(dir / "frontier.json",
             head +
                 "  \"frontier_tok_s_per_user_vs_tok_s_per_gpu\": [\n    [50, 19400],\n"
                 "    [84, 9500],\n    [96, 12000]\n  ]\n}\n");
  struct Case {
    std::string file, message;
  };
  const Case cases[] = {
      {"two.json", "two.json:6: throughput_tok_s_per_gpu_vs_concurrency_per_gpu has 2 points"},
      {"unordered.json", "unordered.json:9:"},
      {"frontier.json", "frontier.json:9:"},
  };
  for (const Case& c : cases) {
    const CliResult r = run_cli("profile telemetry --telemetry '" + (dir / c.file).string() +
                                    "' --out '" + out.string() + "'",
                                dir);
    INFO(c.file << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(c.message) != std::string::npos);
    const bool named = r.output.find("not monotone") != std::string::npos ||
                       r.output.find("at least 3") != std::string::npos;
    CHECK(named);
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
  }
}

TEST_CASE("profile moe --measured-db refuses what the database cannot compose, exit 2",
          "[cli][moe]") {
  const auto dir = scratch_dir("moe_measured_db_bad");
  const auto out = dir / "out" / "v4.json";
  const std::string base =
      "profile moe --gpu h200 --target deepseek-v4-flash --measured-db "
      "profiles/data/aic --out '" +
      out.string() + "' ";
  check_refusals(
      base,
      {
          {"--topology tp8", "covers attention data-parallel (dep<N>) topologies only"},
          {"--topology dep8 --expert-format fp4", "fp8_block only"},
          {"--topology dep8 --expert-distribution zipf", "--expert-distribution: 'zipf'"},
          {"--topology dep8 --expert-imbalance 1.3", "--expert-imbalance: with --measured-db"},
      },
      dir);
  // A good one: measured-db provenance naming the database, and the fit residuals printed.
  const CliResult ok = run_cli(base + "--topology dep8 --date 2026-11-25", dir);
  INFO(ok.output);
  REQUIRE(ok.exit_code == 0);
  CHECK(ok.output.find("verify, held-out points") != std::string::npos);
  const auto p = read_json(out);
  CHECK(p["provenance"]["source"] == "measured-db");
  CHECK(p["provenance"]["database_commit"] == "095f58a51c4ca8e61b66ec108d86f223f8d559ce");
}

}  // namespace
}  // namespace sparksim::testing
