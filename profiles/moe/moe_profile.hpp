// The parts of a DeepSeek-V4 profile shared by every composer of V4 step times (the analytic
// step model, the measured-db composition): drafters fitted to the schema's linear forms by
// their secants between 1 and 256 requests, and the draft's capture shape (DSpark-5).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "profiles/profile.hpp"
#include "profiles/profile_finishing.hpp"

namespace sparksim {

// Microseconds of one draft step of `family` for `requests` requests at block size `gamma`.
using MoeDraftUs = std::function<double(DrafterFamily family, std::int64_t requests, int gamma)>;

// Sets p.draft[*] (MTP-1 and DSpark/DFlash at γ = 5, eagle3 as γ MTP layers) from `draft_us`.
void set_moe_draft_models(Profile& p, const MoeDraftUs& draft_us);
// A V4 draft of `terms`: its capture SPS shape is DSpark-5's (6 verify tokens per request).
ProfileDraft moe_draft(Profile terms);

}  // namespace sparksim
