// Scaling a profile's draft and verify time terms.
#include "experiments/sensitivity/profile_scaling.hpp"

namespace sparksim {

void scale_draft_cost(Profile& profile, double factor) {
  for (auto& model : profile.draft) {
    if (!model) continue;
    model->fixed_us *= factor;
    model->per_pass_us *= factor;
    model->per_token_ns *= factor;
    model->kv_read_ns_per_context_token *= factor;
  }
}

void scale_verify_cost(Profile& profile, double factor) {
  VerifyTimeModel& v = profile.verify;
  v.fixed_us *= factor;
  for (double& us : v.dense_us) us *= factor;
  v.kv_read_ns_per_context_token *= factor;
  v.attention_ns_per_pair *= factor;
  v.per_request_us *= factor;
  v.prefill_chunk_us *= factor;
  if (v.prefill_attention_ns_per_pair) *v.prefill_attention_ns_per_pair *= factor;
  for (double& us : v.head_us) us *= factor;
  v.prefill_token_ns *= factor;
  for (auto& row : v.decode_attention_us) {
    for (double& us : row) us *= factor;
  }
  for (double& sps : profile.sps.steps_per_s) sps /= factor;
  for (double& sps : profile.sps_capture.steps_per_s) sps /= factor;
}

}  // namespace sparksim
