// The attention checks of the kernel harness (kernel_checks.hpp runs them by name): the ragged
// kernel, split-K decode attention, tensor-core prefill attention, and the verify forward in CUDA
// graphs with planned attention, each against the CPU reference by its declared tolerance.
#pragma once

#include <cstdint>

#include "kernels/checks/check_support.hpp"
#include "kernels/checks/compare.hpp"

namespace sparksim::kernels::checks {

CheckResult check_attention(Inputs& in);
CheckResult check_attention_split_k(Inputs& in);
CheckResult check_attention_prefill_tc(Inputs& in);
CheckResult check_verify_graph_planned(Inputs& in, std::uint64_t seed);

}  // namespace sparksim::kernels::checks
