// LiveSps: one table refilled per step from the time model (see the header for the belief).
#include "profiles/live_sps.hpp"

#include <stdexcept>

namespace sparksim {

LiveSps::LiveSps(const TimeModel& model) : model_(model), table_(std::vector<double>{1.0}) {}

const SpsTable& LiveSps::at(std::int64_t requests, std::int64_t context_tokens,
                            std::int64_t max_tokens, SimTime other) {
  if (requests < 1 || context_tokens < 0 || max_tokens < 1 || other < 0) {
    throw std::invalid_argument("LiveSps::at: needs requests >= 1, max_tokens >= 1");
  }
  values_.resize(static_cast<std::size_t>(max_tokens));
  BatchShape shape;
  shape.decode_requests = requests;
  shape.decode_context_tokens = context_tokens;
  for (std::int64_t b = 1; b <= max_tokens; ++b) {
    shape.verify_tokens = b;
    // B·C/R pairs, rounded to nearest: exact when every request has the same context.
    shape.verify_attention_pairs = (b * context_tokens + requests / 2) / requests;
    const SimTime ns = model_.verify_time(shape) + other;
    values_[static_cast<std::size_t>(b - 1)] = 1e9 / static_cast<double>(ns > 0 ? ns : 1);
  }
  table_.assign(values_);
  ++refills_;
  return table_;
}

}  // namespace sparksim
