// The attention checks of the kernel harness (kernel_checks.hpp runs them by name): the ragged
// kernel, split-K decode attention, tensor-core prefill attention, and the verify forward in CUDA
// graphs with planned attention, each against the CPU reference by its declared tolerance.
#pragma once

#include <cstdint>

#include "kernels/checks/check_inputs.hpp"
#include "kernels/checks/compare.hpp"

namespace sparksim::kernels {

CheckResult check_attention(CheckInputs& in);
CheckResult check_attention_split_k(CheckInputs& in);
CheckResult check_attention_prefill_tc(CheckInputs& in);
CheckResult check_verify_graph_planned(CheckInputs& in, std::uint64_t seed);

}  // namespace sparksim::kernels
