// Every CUDA kernel against its CPU reference, by its declared tolerance, on fresh random inputs
// (the seed is printed on failure). Where no CUDA device exists (CI, development machines) each
// test prints GPU_TEST_NOT_RUN, which ctest reports as "Skipped" (SKIP_REGULAR_EXPRESSION in
// tests/CMakeLists.txt), never as passed.
#include "kernels/gpu_kernels.hpp"

#include <iostream>
#include <random>

#include <catch2/catch.hpp>

#include "kernels/checks/kernel_checks.hpp"

namespace sparksim::kernels {
namespace {

void gpu_check(const std::string& name) {
  if (gpu::device_count() == 0) {
    std::cout << "GPU_TEST_NOT_RUN: " << name << " needs a CUDA device (built with CUDA: "
              << (gpu::built_with_cuda() ? "yes" : "no") << ")\n";
    return;
  }
  const std::uint64_t seed = std::random_device{}();
  INFO("seed " << seed << " (rerun: sparksim_kernel_check --seed " << seed << " --only " << name
               << ")");
  const CheckResult r = run_kernel_check(name, seed);
  INFO(r.summary());
  CHECK(r.passed);
}

TEST_CASE("gpu rms_norm matches its reference", "[kernels][gpu]") {
  gpu_check("rms_norm");
}
TEST_CASE("gpu rope matches its reference", "[kernels][gpu]") {
  gpu_check("rope");
}
TEST_CASE("gpu kv_append matches its reference", "[kernels][gpu]") {
  gpu_check("kv_append");
}
TEST_CASE("gpu qk_norm_rope_kv (fused) matches its reference composition", "[kernels][gpu]") {
  gpu_check("qk_norm_rope_kv");
}
TEST_CASE("gpu attention matches its reference", "[kernels][gpu]") {
  gpu_check("attention");
}
TEST_CASE("gpu split-K decode attention matches its reference", "[kernels][gpu]") {
  gpu_check("attention_split_k");
}
TEST_CASE("gpu tensor-core prefill attention matches its reference", "[kernels][gpu]") {
  gpu_check("attention_prefill_tc");
}
TEST_CASE("gpu swiglu matches its reference", "[kernels][gpu]") {
  gpu_check("swiglu");
}
TEST_CASE("gpu gemm matches its reference", "[kernels][gpu]") {
  gpu_check("gemm");
}
TEST_CASE("gpu softmax matches its reference", "[kernels][gpu]") {
  gpu_check("softmax");
}
TEST_CASE("gpu rejection matches its reference", "[kernels][gpu]") {
  gpu_check("rejection");
}
TEST_CASE("gpu verify_forward matches its reference", "[kernels][gpu]") {
  gpu_check("verify_forward");
}

TEST_CASE("gpu verify forward in CUDA graphs with planned attention matches its reference",
          "[kernels][gpu]") {
  gpu_check("verify_graph_planned");
}

TEST_CASE("gpu dspark_draft matches its reference", "[kernels][gpu]") {
  gpu_check("dspark_draft");
}

TEST_CASE("gpu device_weights match the host generator", "[kernels][gpu]") {
  gpu_check("device_weights");
}

TEST_CASE("gpu dspark_device_weights match the host generator", "[kernels][gpu]") {
  gpu_check("dspark_device_weights");
}

TEST_CASE("gpu mtp1_draft matches its reference", "[kernels][gpu]") {
  gpu_check("mtp1_draft");
}

TEST_CASE("gpu eagle3_draft matches its reference", "[kernels][gpu]") {
  gpu_check("eagle3_draft");
}

TEST_CASE("gpu ar_device_weights match the host generator", "[kernels][gpu]") {
  gpu_check("ar_device_weights");
}

TEST_CASE("gpu greedy_step matches its reference", "[kernels][gpu]") {
  gpu_check("greedy_step");
}

TEST_CASE("gpu sampled_step matches its reference", "[kernels][gpu]") {
  gpu_check("sampled_step");
}

TEST_CASE("gpu ar_greedy_step matches its reference", "[kernels][gpu]") {
  gpu_check("ar_greedy_step");
}

TEST_CASE("every kernel check has a gpu test", "[kernels][gpu]") {
  // Guards the list above against a check added without its test.
  CHECK(kernel_check_names().size() == 22u);
  CHECK_THROWS_WITH(run_kernel_check("nope", 1), Catch::Contains("valid: rms_norm"));
}

}  // namespace
}  // namespace sparksim::kernels
