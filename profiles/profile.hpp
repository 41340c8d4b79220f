// Profile: everything sparksim knows about one (GPU, target model) pair: memory sizes, the verify
// step-time model, draft cost per drafter family, the scheduler's SPS(B) table, the host overhead
// of a synchronous scheduler, and provenance (measured on a GPU, or analytic roofline).
// Loaded from JSON (profile_io.hpp); consumed through TimeModel and SpsTable.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiles/drafter.hpp"

namespace sparksim {

struct Provenance {
  // "measured" (our kernels on a named GPU) | "analytic" (a model) | "measured-db" (composed here
  // from a public database's measurements: the database, its commit and framework below) |
  // "telemetry" (fitted to a deployment's measured curve).
  std::string source;
  std::string gpu;   // e.g. "h100-sxm"
  std::string date;  // ISO date the profile was produced
  std::string tool;  // producing tool and version, e.g. "sparksim 0.1.0 profile-analytic"
  std::string git_sha;
  std::string notes;  // free text: assumptions, driver/CUDA versions for measured profiles
  // measured-db only (required there, absent elsewhere):
  std::string database;                   // e.g. "aiconfigurator (ai-dynamo/aiconfigurator)"
  std::string database_commit;            // the database's commit (40 hex)
  std::string framework;                  // the framework its kernels ran in, e.g. "vLLM 0.24.0"
  std::vector<std::string> outside_grid;  // every term taken from outside the measured grid
};

// Step time of the target's verification forward as a function of the batch's shape:
//   t = fixed + dense(pad(B_total)) + kv_read * Σ ctx_decode + attn_pair * (query×context pairs)
//       + per_request * R + head(verify rows + 1 if a prefill chunk runs)
//       + (prefill_chunk if a prefill chunk runs) [+ prefill pairs at their own rate if set]
//       + prefill_token * prefill tokens + decode_attention(R, Σ ctx_decode / R)
// per_request: work per verifying request independent of its tokens (decode attention's
// per-sequence work; DeepSeek-V4's sliding-window KV read). The last two are optional (0 / empty
// in older profiles): measured-db profiles fit decode attention's per-request cost and tabulate
// the LM head apart, because the head runs on the verified rows only, never on a prefill
// chunk's (so dense_us then excludes the head).
// dense(): piecewise linear through (dense_tokens[i], dense_us[i]), extrapolated linearly past
// the last point; pad(): rounds B up to the next CUDA-graph bucket when B <= the largest bucket.
struct VerifyTimeModel {
  double fixed_us = 0;
  std::vector<std::int64_t> graph_buckets;  // ascending; empty = no padding
  std::vector<std::int64_t> dense_tokens;   // ascending, first >= 1
  std::vector<double> dense_us;             // same length, non-decreasing
  double kv_read_ns_per_context_token = 0;  // reading one cached token's K/V in one step
  double attention_ns_per_pair = 0;         // one (query token, context token) score+value pair
  double per_request_us = 0;                // per decode request (attention's per-sequence work)
  // Prefill chunks apart from decode (optional; measured-db profiles fit them, because prefill
  // attention is compute bound and decode attention memory bound): a chunk's fixed cost (default
  // 0), and its pairs' rate (default: attention_ns_per_pair, one rate for every pair; the only
  // optional key whose default is another key's value, so TimeModel resolves it once and
  // `step-time` says which rate it used). Kept optional so older files round-trip byte for byte.
  double prefill_chunk_us = 0;
  std::optional<double> prefill_attention_ns_per_pair;
  std::vector<std::int64_t> head_tokens;  // ascending, first >= 1; empty = head inside dense
  std::vector<double> head_us;            // same length, non-decreasing
  // Per prefill token outside the dense table (optional, 0 in older profiles): measured-db
  // profiles fit it because a chunk's attention costs more per pair the shorter the chunk.
  double prefill_token_ns = 0;
  // Decode attention tabulated over (R requests, mean context Σ ctx / R) (optional; empty in
  // older profiles): measured-db profiles carry the database's own grid, because FlashAttention's
  // decode time is not linear in Σ context (a floor at small batch, split-KV steps, few long
  // requests slower than many short ones). Bilinear inside; below the grid the first row/column;
  // above the last R linear in R; above the last context the last slope continues.
  std::vector<std::int64_t> decode_attention_requests;   // ascending, first >= 1, >= 2 entries
  std::vector<std::int64_t> decode_attention_context;    // ascending, first >= 1, >= 2 entries
  std::vector<std::vector<double>> decode_attention_us;  // [requests][context], whole forward
};

// Draft cost of one step for R requests with block size γ and C cached context tokens in total:
//   t = fixed + passes(γ) * per_pass + per_token * tokens(R, γ) + kv_read * C * kv_passes(γ)
// passes(γ) = γ if sequential_in_gamma (autoregressive eagle3, the Markov head's loop) else 1;
// tokens(R, γ) = R * γ if tokens_scale_with_gamma (parallel block drafters) else R;
// kv_passes(γ) = γ if kv_read_per_pass (every sequential pass re-reads the drafter's KV cache, as
// eagle3's does) else 1 (dspark's Markov loop reads no KV cache).
struct DraftTimeModel {
  double fixed_us = 0;
  double per_pass_us = 0;
  double per_token_ns = 0;
  bool sequential_in_gamma = false;
  bool tokens_scale_with_gamma = false;
  double kv_read_ns_per_context_token = 0;  // the drafter's own layers' cached K/V, per token
  bool kv_read_per_pass = false;
};

// Steps/s at B verify tokens, as the scheduler believes it (profiled at a named shape).
struct SpsPoints {
  std::vector<std::int64_t> tokens;  // ascending, first == 1
  std::vector<double> steps_per_s;   // positive
  std::string reference;             // how the points were obtained (context length, R per B, ...)
};

// Step-time terms a kernel-level model misses, fitted to end-to-end serving measurements (the
// profile's optional "step_terms" section; absent = all zero, the kernel model alone). Every
// number has one default meaning "no effect", whatever `present` says: TimeModel applies
// per_step_us and per_sequence_us as they are. `present` only says whether the file has the
// section (its label and provenance strings, and whether the writer emits it). No term scales a
// step: the large-chunk scale fitted on one case is gone (issue 32, docs/validation.md).
// They say which measurements they came from: they are calibrated, never measured kernels.
//   step += per_step_us (launch and scheduling gap of every step)
//         + per_sequence_us * decode requests (sampling, norms and small kernels per sampled row)
//   The API server's costs (intake, streaming) are not step terms: they belong to the engine
//   version (sim/engine_preset.cpp, sim/front_end_costs.hpp).
struct StepTerms {
  bool present = false;
  std::string source;        // "calibrated"
  std::string measurements;  // which end-to-end measurements (cases) the terms were fitted to
  std::string tool;          // how (command and version)
  std::string notes;
  double per_step_us = 0;
  double per_sequence_us = 0;
};

struct Profile {
  Provenance provenance;
  std::string target;  // e.g. "qwen3-8b"
  int gpus = 1;        // GPUs in one replica (tensor parallel degree): throughput per GPU divides
  // Both for the whole replica (all `gpus` together); weights are the target's as loaded.
  double hbm_bytes = 0;
  double weights_bytes = 0;
  double memory_utilization = 0.9;  // share of HBM the engine may use (weights + KV)
  double kv_bytes_per_token = 0;    // all layers, K and V
  // Memory set aside besides weights and the token-proportional KV (optional key, default 0):
  // DeepSeek-V4's per-request sliding-window KV for the replica's planned concurrency.
  double reserved_bytes = 0;
  double host_overhead_us = 0;  // per step, paid only by synchronous schedulers
  VerifyTimeModel verify;
  // Indexed by DrafterFamily. Empty = the profile has no cost for that family (a measured
  // profile whose sweep did not reach it): require_draft_cost() refuses to simulate it, so no
  // invented cost passes for a measured one. Never empty in the analytic and composed profiles.
  std::array<std::optional<DraftTimeModel>, kDrafterFamilyCount> draft;
  SpsPoints sps;  // the `reference` belief's table (profiles/sps_belief.hpp)
  // The `capture` belief's table (as SGLang's DSpark port profiles it at CUDA-graph capture).
  // Optional in files: a profile without one gets it derived from `verify` when loaded.
  SpsPoints sps_capture;
  StepTerms step_terms;
  std::string path;             // where it was loaded from ("" if built in memory)
  std::int64_t draft_line = 0;  // line of its "draft" key there (0 if built in memory)

  // KV capacity in tokens: (hbm * utilization - weights - reserved) / kv_bytes_per_token, floored.
  std::int64_t kv_capacity_tokens() const;
  bool is_analytic() const { return provenance.source == "analytic"; }
  bool is_telemetry() const { return provenance.source == "telemetry"; }
  bool is_measured_db() const { return provenance.source == "measured-db"; }
  // The label every summary, report and plot title carries: "ANALYTIC roofline profile for
  // h100-sxm / qwen3-8b (not measured on a GPU)", "MEASURED-DB profile for h100-sxm / qwen3-8b:
  // kernel latencies measured by the public database aiconfigurator (ai-dynamo/aiconfigurator@
  // 095f58a51c4c, vLLM 0.24.0), composed by sparksim", or "measured profile for ... (date)".
  std::string label() const;
};

// Throws InputError `path:line: ...` (the profile's "draft" key) naming the profile and the drafter
// when `drafter` speculates and the profile has no draft cost for its family; `none` drafts nothing
// and always passes. Every command checks this before it simulates anything.
void require_draft_cost(const Profile& profile, const DrafterSpec& drafter);

}  // namespace sparksim
