// The bounds check of FrontEndCosts (one message naming every term out of range).
#include "sim/front_end_costs.hpp"

#include <cmath>
#include <cstdio>

namespace sparksim {

std::string front_end_costs_out_of_bounds(const FrontEndCosts& c) {
  std::string out;
  const auto check = [&](const char* name, double value, double most) {
    if (std::isfinite(value) && value >= 0 && value <= most) return;
    char line[160];
    std::snprintf(line, sizeof line, "%s = %g is outside [0, %g]", name, value, most);
    out += (out.empty() ? "" : "; ") + std::string(line);
  };
  check("latency_ms", c.latency_ms, kMaxFrontEndLatencyMs);
  check("intake_batch_ms", c.intake_batch_ms, kMaxFrontEndIntakeMs);
  check("intake_request_ms", c.intake_request_ms, kMaxFrontEndIntakeMs);
  check("intake_prompt_token_us", c.intake_prompt_token_us, kMaxFrontEndPromptTokenUs);
  check("chunk_us", c.chunk_us, kMaxFrontEndChunkUs);
  return out;
}

}  // namespace sparksim
