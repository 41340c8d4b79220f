// The one finishing step of every profile producer (issue 31 part 1). A producer (the analytic
// roofline, the MoE step model, the measured-db compositions, the telemetry fit, our kernels' fit,
// the step-term calibration) builds a ProfileDraft: only what is specific to its source, the terms
// and their provenance. finish_profile() alone then rounds every stored number (one precision
// table, one rounding rule), builds both SPS tables at one reference shape recorded in the file,
// and checks the provenance the label is made from. CUDA-graph padding has one rule too
// (graph_padding.hpp), which the producers, the time model and the composers share.
#pragma once

#include <cstdint>
#include <vector>

#include "profiles/decimal_rounding.hpp"
#include "profiles/graph_padding.hpp"
#include "profiles/profile.hpp"
#include "profiles/sps_belief.hpp"

namespace sparksim {

// The reference SPS shape of every profile kind (`--sps reference`): SpsReferenceShape's
// defaults, B verify tokens from ceil(B / 4) requests (about DSpark's verify length at moderate
// load) with 2048 cached tokens each (inside the paper's 512-4096 latency range), B up to 8192.
// Its description is stored in the file's sps.reference.
inline constexpr SpsReferenceShape kSpsReferenceShape{};

// Decimal places each stored term keeps. The defaults are the finest any producer needs (the
// measured-db fits); a producer whose terms mean less sets coarser ones for its terms.
struct StoredPrecision {
  int verify_fixed_us = 3;
  int table_us = 3;  // dense_us, head_us, decode_attention_us
  int kv_read_ns = 5;
  int attention_ns_per_pair = 6;
  int per_request_us = 4;
  int prefill_chunk_us = 3;
  int prefill_token_ns = 4;
  int draft_us = 3;  // fixed_us, per_pass_us
  int draft_per_token_ns = 3;
  int draft_kv_read_ns = 4;
  int kv_bytes_per_token = 3;
  // step_terms (the calibration's resolution: 0.1 us per step, 0.01 us per sequence, ...)
  int per_step_us = 1;
  int per_sequence_us = 2;
};

// What a producer hands to finish_profile: its profile's terms (memory, verify model with its
// graph buckets, draft costs, step terms) and their provenance (source, gpu, date, tool, git_sha,
// notes, and for measured-db the database's identity). SPS tables in it are ignored.
struct ProfileDraft {
  Profile profile;
  StoredPrecision precision;
  // The capture belief's shape: each request verifies γ + 1 tokens of the drafter the target is
  // served with (dspark-7: 8; DeepSeek-V4's DSpark-5: 6).
  SpsCaptureShape capture;
};

// Rounds every stored term of `p` to `precision` (finish_profile does it; a producer that fits
// against its own tables calls it first, so the fit sees the tables as they are stored).
void round_stored_terms(Profile& p, const StoredPrecision& precision);

// Rounds, builds the SPS tables (reference at kSpsReferenceShape, capture at draft.capture; both
// texts start with the provenance source) and checks the provenance: a producer's bug (empty
// source, gpu, date or tool; an unknown source; database identity on a non-measured-db profile or
// missing on one) throws std::logic_error.
Profile finish_profile(ProfileDraft draft);

// A finished profile back as a draft (to change a term and finish again, as the step-term
// calibration does): the capture shape is read from its stored capture table.
ProfileDraft draft_of(const Profile& finished);

}  // namespace sparksim
