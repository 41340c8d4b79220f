// The parts of a DeepSeek-V4 profile shared by every composer of V4 step times (the analytic
// step model, the measured-db composition): drafters fitted to the schema's linear forms by
// their secants between 1 and 256 requests, and the SPS tables from the profile's time model.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "profiles/profile.hpp"

namespace sparksim {

// Microseconds of one draft step of `family` for `requests` requests at block size `gamma`.
using MoeDraftUs = std::function<double(DrafterFamily family, std::int64_t requests, int gamma)>;

// Sets p.draft[*] (MTP-1 and DSpark/DFlash at γ = 5, eagle3 as γ MTP layers) from `draft_us`.
void set_moe_draft_models(Profile& p, const MoeDraftUs& draft_us);
// Fills p.sps and p.sps_capture from p's verify model; `source` ("analytic", "measured-db")
// starts their reference text.
void set_moe_sps(Profile& p, const std::string& source);

}  // namespace sparksim
