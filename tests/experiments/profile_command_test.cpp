// `sparksim profile kernels` (the measured profiler) through the real binary: its help says it
// needs a GPU; without one it writes nothing and exits 2; bad arguments exit 2 on every machine.
#include <filesystem>

#include <catch2/catch.hpp>

#include "tests/experiments/cli_harness.hpp"

namespace sparksim::testing {
namespace {

TEST_CASE("profile kernels help says it needs a GPU", "[cli][profile_gpu]") {
  const auto dir = scratch_dir("profile_gpu_help");
  const CliResult r = run_cli("profile kernels --help", dir);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("NEEDS A GPU") != std::string::npos);
  CHECK(r.output.find("--drafters") != std::string::npos);
}

TEST_CASE("profile kernels exits 2 and writes nothing since it cannot measure here",
          "[cli][profile_gpu]") {
  const auto dir = scratch_dir("profile_gpu_run");
  const auto out = dir / "measured" / "qwen3-8b.json";
  const CliResult r =
      run_cli("profile kernels --target qwen3-8b --out '" + out.string() + "'", dir);
  INFO(r.output);
  // The simulator binary never runs CUDA itself (it links no CUDA library), on any machine.
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("needs a CUDA GPU") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("profile kernels rejects an unknown target or drafter on any machine",
          "[cli][profile_gpu]") {
  const auto dir = scratch_dir("profile_gpu_bad");
  const CliResult target = run_cli("profile kernels --target qwen3-9b --out x.json", dir);
  CHECK(target.exit_code == 2);
  CHECK(target.output.find("valid: qwen3-4b") != std::string::npos);
  const CliResult drafter =
      run_cli("profile kernels --target qwen3-8b --drafters mtp1,dspork-7 --out x.json", dir);
  CHECK(drafter.exit_code == 2);
  CHECK(drafter.output.find("dspork") != std::string::npos);
}

}  // namespace
}  // namespace sparksim::testing
