// Physical consistency of a real-silicon row with its own profile (a diagnostic, nothing fitted).
// Under the assumed client (closed loop at concurrency c, every request isl prompt and osl output
// tokens) a row's measured TTFT and TPOT imply a request rate c / (TTFT + (osl - 1) TPOT), so
// prompt tokens prefilled per second = rate x isl and output tokens per second = rate x osl. The
// profile's own step formula (TimeModel::verify_terms) bounds both from above even with nothing
// else running: prefill by a pure full-chunk step (the preset's token budget of prompt tokens,
// no decode), decode by a pure decode step of all c requests at the shortest context any decode
// step of the row sees (isl + 1). A row whose implied prefill (or decode) rate exceeds its bound
// cannot be replayed honestly as stated: the engine did less work than the row says (prefix-cache
// hits, shorter prompts or outputs), or ran faster kernels than the profile's (an FP8 KV cache,
// other kernels).
#pragma once

#include <cstdint>

#include "experiments/validate/silicon_sample.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {

struct SiliconConsistency {
  double request_rate_per_s = 0;        // c / (TTFT + (osl - 1) TPOT)
  double prefill_tokens_per_s = 0;      // rate x isl: what the measurement implies
  double decode_tokens_per_s = 0;       // rate x osl
  std::int64_t chunk_tokens = 0;        // the pure prefill step's prompt tokens (token budget)
  double chunk_step_ms = 0;             // its time under the profile
  double max_prefill_tokens_per_s = 0;  // chunk_tokens / chunk_step_ms
  double decode_step_ms = 0;            // c requests at context isl + 1, one token each
  double max_decode_tokens_per_s = 0;   // c / decode_step_ms
  double prefill_load = 0;              // prefill_tokens_per_s / max_prefill_tokens_per_s
  double decode_load = 0;               // decode_tokens_per_s / max_decode_tokens_per_s
  // The row implies more prefill than the profile's kernels can do with nothing else running.
  bool prefill_exceeds_profile() const { return prefill_load > 1; }
  // The row implies more output tokens per second than pure decode steps of all c requests at
  // their shortest context give: its decode steps are faster than the profile's can be.
  bool decode_exceeds_profile() const { return decode_load > 1; }
};

// `chunk_tokens`: the engine preset's token budget per step (max_batch_tokens). The prefill
// step's attention pairs are chunk x (isl + 1) / 2: prompts of isl tokens prefilled whole or in
// chunks average (isl + 1) / 2 pairs per prompt token either way.
SiliconConsistency silicon_consistency(const SiliconRow& row, const TimeModel& model,
                                       std::int64_t chunk_tokens);

}  // namespace sparksim
