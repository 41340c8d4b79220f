// GPU-against-reference comparisons of the autoregressive drafters (ar_drafter_gpu.hpp against
// mtp1_ref.hpp / eagle3_ref.hpp), part of kernel_checks.hpp's list: mtp1_draft, eagle3_draft
// (context update K/V, each pass's logits, distribution and hidden state, greedy tokens) and
// ar_device_weights (both drafters drawn on the device against the host generator's weights),
// and their engine step, ar_greedy_step (ar_step_checks.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/checks/compare.hpp"

namespace sparksim::kernels {

const std::vector<std::string>& ar_drafter_check_names();
// std::invalid_argument for a name outside ar_drafter_check_names().
CheckResult run_ar_drafter_check(const std::string& name, std::uint64_t seed);

}  // namespace sparksim::kernels
