// sparksim_kernel_check: the harness to run on a GPU machine. Compares every CUDA kernel with its
// CPU reference on fresh random inputs (the seed is printed, or fixed with --seed N) and prints
// one line per kernel. Exit 0 all pass, 1 a comparison failed, 2 no GPU or bad arguments. Builds
// in the kernels-only configuration (-DSPARKSIM_KERNELS_ONLY=ON): CUDA, cuBLAS, nothing else.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>

#include "kernels/checks/kernel_checks.hpp"
#include "kernels/gpu_kernels.hpp"

int main(int argc, char** argv) {
  using namespace sparksim::kernels;
  std::uint64_t seed = std::random_device{}();
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: sparksim_kernel_check [--seed N] [--only NAME]\n"
                   "Compares each CUDA kernel with its CPU reference; needs a CUDA device.\n");
      return 2;
    }
  }
  if (!gpu::built_with_cuda()) {
    std::fprintf(stderr, "sparksim_kernel_check: built without CUDA; nothing to check\n");
    return 2;
  }
  if (gpu::device_count() == 0) {
    std::fprintf(stderr, "sparksim_kernel_check: no CUDA device; the GPU checks were not run\n");
    return 2;
  }
  std::printf("device: %s\nseed: %llu\n", gpu::device_summary().c_str(),
              static_cast<unsigned long long>(seed));
  int failures = 0;
  for (const std::string& name : kernel_check_names()) {
    if (!only.empty() && name != only) continue;
    try {
      const CheckResult r = run_kernel_check(name, seed);
      std::printf("%s\n", r.summary().c_str());
      if (!r.passed) ++failures;
    } catch (const std::exception& e) {
      std::printf("%-16s ERROR %s\n", name.c_str(), e.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
