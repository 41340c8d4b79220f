// A real-silicon row's implied work against its own profile's fastest steps (see the header).
#include "experiments/validate/silicon_consistency.hpp"

namespace sparksim {

SiliconConsistency silicon_consistency(const SiliconRow& row, const TimeModel& model,
                                       std::int64_t chunk_tokens) {
  SiliconConsistency c;
  const double users = static_cast<double>(row.batch_size);
  const double e2e_s = (row.ttft_ms + static_cast<double>(row.osl - 1) * row.tpot_ms) * 1e-3;
  c.request_rate_per_s = users / e2e_s;
  c.prefill_tokens_per_s = c.request_rate_per_s * static_cast<double>(row.isl);
  c.decode_tokens_per_s = c.request_rate_per_s * static_cast<double>(row.osl);

  c.chunk_tokens = chunk_tokens;
  BatchShape prefill;
  prefill.prefill_tokens = chunk_tokens;
  prefill.prefill_attention_pairs = chunk_tokens * (row.isl + 1) / 2;
  c.chunk_step_ms = model.verify_terms(prefill).total_us() * 1e-3;
  c.max_prefill_tokens_per_s = static_cast<double>(chunk_tokens) / (c.chunk_step_ms * 1e-3);

  BatchShape decode;
  const std::int64_t context = row.isl + 1;
  decode.decode_requests = row.batch_size;
  decode.verify_tokens = row.batch_size;
  decode.decode_context_tokens = row.batch_size * context;
  decode.verify_attention_pairs = row.batch_size * context;
  c.decode_step_ms = model.verify_terms(decode).total_us() * 1e-3;
  c.max_decode_tokens_per_s = users / (c.decode_step_ms * 1e-3);

  c.prefill_load = c.prefill_tokens_per_s / c.max_prefill_tokens_per_s;
  c.decode_load = c.decode_tokens_per_s / c.max_decode_tokens_per_s;
  return c;
}

}  // namespace sparksim
