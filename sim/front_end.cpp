// Costs in nanoseconds, each rounded once (the per-prompt-token cost per request).
#include "sim/front_end.hpp"

#include <cmath>

namespace sparksim {

FrontEnd::FrontEnd(const FrontEndCosts& costs)
    : active_(costs.any()),
      latency_(seconds_to_sim_time(costs.latency_ms * 1e-3)),
      batch_(seconds_to_sim_time(costs.intake_batch_ms * 1e-3)),
      request_(seconds_to_sim_time(costs.intake_request_ms * 1e-3)),
      chunk_(seconds_to_sim_time(costs.chunk_us * 1e-6)),
      prompt_token_ns_(costs.intake_prompt_token_us * 1e3) {}

FrontEnd::Intake FrontEnd::take_in(SimTime now, std::int64_t prompt_tokens) {
  const SimTime tokenising = prompt_token_ns_ > 0
                                 ? static_cast<SimTime>(std::llround(
                                       static_cast<double>(prompt_tokens) * prompt_token_ns_))
                                 : 0;
  const FrontEndServer::Joined j = server_.serve_batch_member(now, batch_, request_ + tokenising);
  return {j.done + latency_, j.joined};
}

}  // namespace sparksim
