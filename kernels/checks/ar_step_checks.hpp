// The device engine step with an autoregressive drafter (ArStepRunner, ar_drafter_gpu.hpp)
// against ar_greedy_step_ref: the ar_greedy_step check of kernel_checks.hpp's list (registered
// with the drafter checks, ar_drafter_checks.cpp).
#pragma once

#include <cstdint>

#include "kernels/checks/compare.hpp"

namespace sparksim::kernels {

// MTP-1 then EAGLE-3, two steps each from the same random caches and pass-0 states: accepted
// counts and committed tokens exact unless one of the reference's decisions for that request is a
// near tie (top-two logit gap < kDraftTieMargin: a verified draft's drafter logits, or the
// target's at a row up to the acceptance point); for the requests held to exactness, the target
// cache's committed positions (kVerifyForwardNmse), the drafter's cache positions 0..C-2 and the
// next pass-0 states (captured target states), both kArStepNmse.
CheckResult check_ar_greedy_step(std::uint64_t seed);

}  // namespace sparksim::kernels
