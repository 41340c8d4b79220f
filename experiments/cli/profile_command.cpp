// `sparksim profile kernels`: the measured profiler's entry point. Measuring runs the project's
// CUDA kernels, which live in kernels/ and its own binaries (sparksim_kernel_check, and the sweep
// when it exists): the simulator binary links no CUDA library, because loading cuBLAS costs every
// simulation about 0.3 s and 250 MB of resident memory at start-up for nothing. So this command
// validates its arguments (a typo is reported the same way on every machine), then says where the
// GPU work runs, writes nothing and exits 2. `sparksim profile analytic` writes a roofline
// estimate labelled analytic instead.
#include <cstdio>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "common/input_error.hpp"
#include "experiments/cli/commands.hpp"
#include "kernels/model_shape.hpp"
#include "profiles/drafter.hpp"

namespace sparksim::cli {

namespace {

struct ProfileOptions {
  std::string target;
  std::string drafters = "mtp1,dspark-7,dflash-7,eagle3-7";
  std::string out_path;
};

void run_profile(const ProfileOptions& o) {
  try {
    kernels::qwen3_shape(o.target);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("--target: ") + e.what());
  }
  std::stringstream list(o.drafters);
  std::string name;
  while (std::getline(list, name, ',')) parse_drafter(name);

  std::fprintf(
      stderr,
      "sparksim profile kernels: needs a CUDA GPU and the CUDA build of kernels/; nothing was "
      "written to %s.\n"
      "On a GPU machine, build/kernels/sparksim_kernel_check checks every kernel against "
      "its CPU reference; the measurement sweep that writes a profile is not implemented "
      "yet.\n"
      "`sparksim profile analytic` writes a roofline estimate labelled analytic.\n",
      o.out_path.c_str());
  throw CommandExit{2};
}

}  // namespace

void add_profile_kernels_command(CLI::App& profile) {
  auto options = std::make_shared<ProfileOptions>();
  CLI::App* cmd = profile.add_subcommand(
      "kernels",
      "measure a profile by running the project's CUDA kernels; NEEDS A GPU: without a CUDA "
      "device it writes nothing and exits 2 (see profile analytic)");
  cmd->add_option("--target", options->target, "target model: qwen3-4b, qwen3-8b or qwen3-14b")
      ->required();
  cmd->add_option("--drafters", options->drafters, "comma-separated drafters to time")
      ->capture_default_str();
  cmd->add_option("--out", options->out_path,
                  "profile JSON to write, e.g. profiles/measured/<gpu>/<target>.json")
      ->required();
  cmd->callback([options] { run_profile(*options); });
}

}  // namespace sparksim::cli
