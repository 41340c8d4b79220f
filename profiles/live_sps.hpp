// LiveSps: the `live` SPS belief. Every step the engine asks it for the table at that step's
// actual requests and contexts, and hands the policy that table as it would hand a static one, so
// policies need no access to the time model or the engine.
//
// The belief (docs/sps-beliefs.md): for a step with R decode requests whose cached contexts sum to
// C, and a per-step cost `other` that does not depend on how many drafts are verified (the draft
// forward, and the host overhead a synchronous policy pays),
//   SPS(B) = 1 s / (verify_time(R requests, B verify tokens, C context, B·C/R attention pairs)
//                   + other)
// for B = 1 .. max_tokens. Where every request has the same context (C/R exact) this is exactly
// 1 / the duration the engine charges if the policy's lengths sum to B - R drafts and the step
// carries no prefill chunk; with unequal contexts the attention term uses the mean context.
#pragma once

#include <cstdint>
#include <vector>

#include "profiles/time_model.hpp"

namespace sparksim {

class LiveSps {
 public:
  explicit LiveSps(const TimeModel& model);

  // The table for one step (valid until the next call). requests >= 1, context_tokens >= 0,
  // max_tokens >= 1, other >= 0.
  const SpsTable& at(std::int64_t requests, std::int64_t context_tokens, std::int64_t max_tokens,
                     SimTime other);

  std::int64_t refills() const { return refills_; }

 private:
  const TimeModel& model_;
  std::vector<double> values_;
  SpsTable table_;
  std::int64_t refills_ = 0;
};

}  // namespace sparksim
