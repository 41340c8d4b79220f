// `sparksim profile`: the measured profiler. It runs the project's CUDA kernels on a GPU, so it
// needs a CUDA build and a device; without either it says so, writes nothing and exits 2 (use
// `sparksim profile-analytic` for a labelled roofline estimate instead). Arguments are validated
// first, so a typo is reported the same way on every machine.
#include <cstdio>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "experiments/cli/commands.hpp"
#include "kernels/checks/kernel_checks.hpp"
#include "kernels/gpu_kernels.hpp"
#include "kernels/model_shape.hpp"
#include "profiles/drafter.hpp"

namespace sparksim::cli {

namespace {

struct ProfileGpuOptions {
  std::string target;
  std::string drafters = "mtp1,dspark-7,dflash-7,eagle3-7";
  std::string out_path;
};

void run_profile_gpu(const ProfileGpuOptions& o) {
  try {
    kernels::qwen3_shape(o.target);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("--target: ") + e.what());
  }
  std::stringstream list(o.drafters);
  std::string name;
  while (std::getline(list, name, ',')) parse_drafter(name);

  if (!kernels::gpu::built_with_cuda() || kernels::gpu::device_count() == 0) {
    std::fprintf(stderr,
                 "sparksim profile: needs a CUDA GPU (%s); nothing was written to %s.\n"
                 "`sparksim profile-analytic` writes a roofline estimate labelled analytic.\n",
                 kernels::gpu::built_with_cuda() ? "no CUDA device found"
                                                 : "this binary was built without CUDA",
                 o.out_path.c_str());
    throw CommandExit{2};
  }
  // On a GPU: first the kernels must agree with their CPU references.
  std::printf("device: %s\n", kernels::gpu::device_summary().c_str());
  const std::uint64_t seed = std::random_device{}();
  bool all_passed = true;
  for (const std::string& check : kernels::kernel_check_names()) {
    const kernels::CheckResult r = kernels::run_kernel_check(check, seed);
    std::printf("check %s (seed %llu)\n", r.summary().c_str(),
                static_cast<unsigned long long>(seed));
    all_passed = all_passed && r.passed;
  }
  if (!all_passed) throw std::runtime_error("a kernel disagrees with its CPU reference");
  throw std::runtime_error(
      "the measurement sweep (step-time runner, fit, profile writer) is not implemented yet; "
      "nothing was written");
}

}  // namespace

void add_profile_gpu_command(CLI::App& app) {
  auto options = std::make_shared<ProfileGpuOptions>();
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Measure a profile by running the CUDA kernels. NEEDS A GPU: without a CUDA device it "
      "writes nothing and exits 2 (see profile-analytic)");
  cmd->add_option("--target", options->target, "Target model: qwen3-4b, qwen3-8b or qwen3-14b")
      ->required();
  cmd->add_option("--drafters", options->drafters, "Comma-separated drafters to time")
      ->capture_default_str();
  cmd->add_option("--out", options->out_path,
                  "Profile JSON to write, e.g. profiles/measured/<gpu>/<target>.json")
      ->required();
  cmd->callback([options] { run_profile_gpu(*options); });
}

}  // namespace sparksim::cli
