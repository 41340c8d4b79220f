// Cost multipliers on a loaded profile, for sensitivity studies: "the drafter costs 1.3× what the
// profile says", "the target's forward costs 0.9×". Every time term of the model is multiplied
// (so a step's time scales exactly by the factor) and the scheduler's SPS beliefs follow the
// verify factor (steps per second ÷ factor), so the policy sees the cost it pays.
#pragma once

#include "profiles/profile.hpp"

namespace sparksim {

// Every draft family's fixed, per-pass, per-token and KV-read terms × factor (> 0).
void scale_draft_cost(Profile& profile, double factor);

// The verify forward's time terms × factor (> 0), SPS tables ÷ factor. Host overhead and the
// calibrated step terms are separate inputs and stay.
void scale_verify_cost(Profile& profile, double factor);

}  // namespace sparksim
