// The whole-model comparisons (model_checks.cpp), run through run_kernel_check (kernel_checks.hpp):
// each takes the check's inputs and seed and compares by its declared tolerance.
#pragma once

#include <cstdint>

#include "kernels/checks/check_support.hpp"

namespace sparksim::kernels::checks {

CheckResult check_verify_forward(Inputs& in, std::uint64_t seed);
CheckResult check_device_weights(Inputs& in, std::uint64_t seed);
CheckResult check_dspark_device_weights(Inputs& in, std::uint64_t seed);
CheckResult check_dspark_draft(Inputs& in, std::uint64_t seed);
CheckResult check_greedy_step(Inputs& in, std::uint64_t seed);
CheckResult check_sampled_step(Inputs& in, std::uint64_t seed);

}  // namespace sparksim::kernels::checks
