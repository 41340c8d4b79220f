// NoDraftModel: the acceptance model of `--drafter none` (γ = 0). There is nothing to draft, so
// every step's hidden outcome is 0 accepted drafts and the engine commits exactly one token per
// request and step: plain autoregressive decoding.
#pragma once

#include <algorithm>

#include "sim/acceptance/acceptance_model.hpp"

namespace sparksim {

class NoDraftModel final : public AcceptanceModel {
 public:
  void init_request(std::uint64_t /*request_id*/, Domain /*domain*/,
                    AcceptanceState& /*state*/) override {}
  void draft(std::span<const DraftSlot> /*slots*/, int /*gamma*/, std::span<float> /*confidences*/,
             std::span<int> hidden_accepted) override {
    std::fill(hidden_accepted.begin(), hidden_accepted.end(), 0);
  }
  std::vector<std::string> notes() const override {
    return {"drafter none: no drafts, one token per request and step"};
  }
};

}  // namespace sparksim
