// GPU-against-CPU-reference comparisons of every CUDA kernel, on small shapes and random inputs
// drawn from `seed` (callers draw a fresh seed per run and print it, so a failure reproduces).
// Each check compares by its kernel's declared tolerance (kernels/kernel_tolerances.hpp). They need
// a CUDA device: the tests report them as not run without one, the harness says so and exits 2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/checks/compare.hpp"

namespace sparksim::kernels {

// rms_norm, rope, kv_append, qk_norm_rope_kv, attention, attention_split_k, attention_prefill_tc,
// swiglu, gemm, softmax, rejection, verify_forward, verify_graph_planned, dspark_draft,
// device_weights, dspark_device_weights, greedy_step, sampled_step, and the autoregressive
// drafters' mtp1_draft, eagle3_draft, ar_device_weights and their engine step ar_greedy_step
// (ar_drafter_checks.hpp, ar_step_checks.hpp).
const std::vector<std::string>& kernel_check_names();

// Runs one comparison; std::invalid_argument for an unknown name (listing the valid ones),
// std::runtime_error from CUDA (no device, a failed call).
CheckResult run_kernel_check(const std::string& name, std::uint64_t seed);

}  // namespace sparksim::kernels
