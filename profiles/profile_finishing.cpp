// The finishing step every producer's draft goes through (see the header).
#include "profiles/profile_finishing.hpp"

#include <stdexcept>
#include <string>

namespace sparksim {

namespace {

void round_all(std::vector<double>& values, int decimals) {
  for (double& x : values) x = round_decimals(x, decimals);
}

void round_verify(VerifyTimeModel& v, const StoredPrecision& d) {
  v.fixed_us = round_decimals(v.fixed_us, d.verify_fixed_us);
  round_all(v.dense_us, d.table_us);
  round_all(v.head_us, d.table_us);
  for (std::vector<double>& row : v.decode_attention_us) round_all(row, d.table_us);
  v.kv_read_ns_per_context_token = round_decimals(v.kv_read_ns_per_context_token, d.kv_read_ns);
  v.attention_ns_per_pair = round_decimals(v.attention_ns_per_pair, d.attention_ns_per_pair);
  v.per_request_us = round_decimals(v.per_request_us, d.per_request_us);
  v.prefill_chunk_us = round_decimals(v.prefill_chunk_us, d.prefill_chunk_us);
  if (v.prefill_attention_ns_per_pair) {
    *v.prefill_attention_ns_per_pair =
        round_decimals(*v.prefill_attention_ns_per_pair, d.attention_ns_per_pair);
  }
  v.prefill_token_ns = round_decimals(v.prefill_token_ns, d.prefill_token_ns);
}

void round_step_terms(StepTerms& t, const StoredPrecision& d) {
  t.per_step_us = round_decimals(t.per_step_us, d.per_step_us);
  t.per_sequence_us = round_decimals(t.per_sequence_us, d.per_sequence_us);
}

void require(bool ok, const Profile& p, const std::string& what) {
  if (!ok) {
    throw std::logic_error("finish_profile (" + p.target + " on " + p.provenance.gpu +
                           "): " + what);
  }
}

// The provenance every label and report is made from (Profile::label()).
void check_provenance(const Profile& p) {
  const Provenance& s = p.provenance;
  require(!p.target.empty(), p, "no target");
  require(s.source == "analytic" || s.source == "measured-db" || s.source == "measured" ||
              s.source == "telemetry",
          p, "unknown provenance source '" + s.source + "'");
  require(!s.gpu.empty() && !s.date.empty() && !s.tool.empty(), p,
          "provenance needs a gpu, a date and a tool");
  const bool identified = !s.database.empty() && !s.database_commit.empty() && !s.framework.empty();
  const bool any_identity =
      !s.database.empty() || !s.database_commit.empty() || !s.framework.empty();
  require(p.is_measured_db() ? identified : !any_identity, p,
          "a database identity belongs to measured-db profiles, each of them");
  require(!p.label().empty(), p, "no label");
}

}  // namespace

void round_stored_terms(Profile& p, const StoredPrecision& d) {
  p.kv_bytes_per_token = round_decimals(p.kv_bytes_per_token, d.kv_bytes_per_token);
  round_verify(p.verify, d);
  for (std::optional<DraftTimeModel>& family : p.draft) {
    if (!family) continue;
    family->fixed_us = round_decimals(family->fixed_us, d.draft_us);
    family->per_pass_us = round_decimals(family->per_pass_us, d.draft_us);
    family->per_token_ns = round_decimals(family->per_token_ns, d.draft_per_token_ns);
    family->kv_read_ns_per_context_token =
        round_decimals(family->kv_read_ns_per_context_token, d.draft_kv_read_ns);
  }
  round_step_terms(p.step_terms, d);
}

Profile finish_profile(ProfileDraft draft) {
  Profile& p = draft.profile;
  check_provenance(p);
  round_stored_terms(p, draft.precision);
  // Both tables from the rounded model, as it is stored and simulated (step terms included).
  SpsTables tables = build_sps_tables(p, SpsTableShapes{draft.capture, kSpsReferenceShape});
  const std::string source = p.provenance.source + " ";
  p.sps = std::move(tables.reference);
  p.sps.reference = source + p.sps.reference;
  p.sps_capture = std::move(tables.capture);
  p.sps_capture.reference = source + p.sps_capture.reference;
  return std::move(draft.profile);
}

ProfileDraft draft_of(const Profile& finished) {
  ProfileDraft draft;
  draft.profile = finished;
  const std::int64_t last =
      finished.sps_capture.tokens.empty() ? 0 : finished.sps_capture.tokens.back();
  if (last > 0 && last % draft.capture.max_requests == 0) {
    draft.capture.verify_tokens_per_request = last / draft.capture.max_requests;
  }
  return draft;
}

}  // namespace sparksim
