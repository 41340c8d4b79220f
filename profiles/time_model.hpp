// TimeModel: the engine's true step time for a batch shape, evaluated from a Profile.
// SpsTable: the scheduler's belief, SPS(B) steps/s at B verify tokens, O(1) per lookup because
// schedulers query it once per admitted candidate. The two may differ on purpose.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/sim_time.hpp"
#include "profiles/profile.hpp"

namespace sparksim {

struct BatchShape {
  std::int64_t decode_requests = 0;          // R: requests verifying this step
  std::int64_t verify_tokens = 0;            // Σ (1 + ℓ_r) over decode requests
  std::int64_t decode_context_tokens = 0;    // Σ cached tokens of decode requests (KV read)
  std::int64_t verify_attention_pairs = 0;   // Σ (1 + ℓ_r) * context_r
  std::int64_t prefill_tokens = 0;           // prompt tokens prefilled in this step
  std::int64_t prefill_attention_pairs = 0;  // Σ chunk * (already_cached + (chunk + 1) / 2)
};

// verify_time's terms for one shape, in microseconds (what `sparksim step-time` prints). Every
// term verify_time adds is here: verify_time(shape) == round(total_us() * 1e3) up to the last
// bits of floating-point summation order.
struct VerifyTerms {
  std::int64_t padded_tokens = 0;  // the dense table's argument: pad(verify + prefill tokens)
  std::int64_t head_rows = 0;      // LM-head rows (0 when the dense table includes the head)
  double fixed_us = 0, dense_us = 0, head_us = 0, per_request_us = 0, kv_read_us = 0,
         attention_us = 0, prefill_chunk_us = 0, prefill_attention_us = 0, prefill_token_us = 0,
         decode_attention_us = 0;  // the profile's decode-attention table (0 without one)
  // The step terms (0 without them): the per-step gap and the per-decode-request cost.
  double per_step_us = 0, per_sequence_us = 0;
  double total_us() const {
    return fixed_us + dense_us + head_us + per_request_us + kv_read_us + attention_us +
           prefill_chunk_us + prefill_attention_us + prefill_token_us + decode_attention_us +
           per_step_us + per_sequence_us;
  }
};

class TimeModel {
 public:
  explicit TimeModel(const Profile& profile);

  // Target forward over verify + prefill tokens. 0 tokens -> 0.
  SimTime verify_time(const BatchShape& shape) const;
  // The same, term by term and unrounded (not for the hot path).
  VerifyTerms verify_terms(const BatchShape& shape) const;
  // Drafter forward for `requests` requests at block size γ. 0 requests -> 0. Throws
  // std::logic_error for a family the profile has no cost for: callers check
  // require_draft_cost() before they simulate (a programming error, never a zero cost).
  // Ignores the drafter's KV-cache read: prefer the overload below where contexts are known.
  SimTime draft_time(const DrafterSpec& drafter, std::int64_t requests) const;
  // As above, plus reading the drafter's own KV cache for `context_tokens` cached tokens summed
  // over the requests (the same Σ context as BatchShape::decode_context_tokens).
  SimTime draft_time(const DrafterSpec& drafter, std::int64_t requests,
                     std::int64_t context_tokens) const;
  // Host-side scheduling cost per step for synchronous schedulers.
  SimTime host_overhead() const { return host_overhead_; }

 private:
  double dense_us(std::int64_t tokens) const;
  // The LM head over `rows` verified rows (0 when the profile has no head table).
  double head_us(std::int64_t rows) const;
  // The decode-attention table at R requests holding `context_tokens` in all (0 without one).
  double decode_attention_us(std::int64_t requests, std::int64_t context_tokens) const;
  std::int64_t pad(std::int64_t tokens) const;
  // dense_us(pad(tokens)) for tokens < kPaddedDenseTokens, so a step's time needs no search.
  static constexpr std::int64_t kPaddedDenseTokens = 16384;
  std::vector<double> padded_dense_us_;
  VerifyTimeModel verify_;
  std::vector<double> dense_slope_us_;   // per segment i: (dense_us[i+1] - dense_us[i]) / Δtokens
  std::vector<double> head_by_rows_us_;  // head_us(rows) for rows < kPaddedDenseTokens
  double prefill_pair_ns_ = 0;           // the prefill pairs' rate (attention's unless set)
  std::array<std::optional<DraftTimeModel>, kDrafterFamilyCount> draft_;  // as the profile's
  SimTime host_overhead_ = 0;
  StepTerms terms_;
};

class SpsTable {
 public:
  // Materialises SPS at every integer B in [1, max_tokens] by linear interpolation between the
  // profile's points; beyond the last point SPS falls as last_sps * last_B / B (constant tokens/s).
  SpsTable(const SpsPoints& points, std::int64_t max_tokens);
  // From explicit values sps[B-1] for B = 1..n (tests and worked examples).
  explicit SpsTable(std::vector<double> sps_by_tokens);
  // Replaces the values as the constructor above would, reusing the storage (LiveSps refills one
  // table every step).
  void assign(std::span<const double> sps_by_tokens);

  double steps_per_s(std::int64_t tokens) const {  // tokens >= 1
    if (tokens <= max_tokens()) return sps_[static_cast<std::size_t>(tokens > 1 ? tokens - 1 : 0)];
    // Beyond the table, tokens/s stays at the table's last rate.
    return tail_tokens_per_s_ / static_cast<double>(tokens);
  }
  std::int64_t max_tokens() const { return static_cast<std::int64_t>(sps_.size()); }
  // The table itself: entry B - 1 is SPS(B) for B = 1..max_tokens() (for loops that look up many
  // consecutive B and have checked the range once).
  const double* table() const { return sps_.data(); }

  // max over B in [lo, hi] (1 <= lo <= hi) of SPS(B) / SPS(B + 1): the largest relative slowdown
  // of one more verify token anywhere in that range. Schedulers use it to bound, without ordering
  // anything, which admissions must raise τ·SPS(B). O(1) up to 256 tokens wide (a sparse
  // table), O(width / 256) beyond.
  double max_step_ratio(std::int64_t lo, std::int64_t hi) const;

 private:
  static constexpr int kRatioLevels = 9;  // windows of 1, 2, 4, ..., 256 tokens
  void compute_step_ratios();
  std::vector<double> sps_;
  // ratio_max_[k][i] = max of SPS(B) / SPS(B + 1) over B = i + 1 .. i + 2^k (within the table).
  std::vector<std::vector<double>> ratio_max_;
  std::size_t ratio_levels_ = 0;  // levels of ratio_max_ in use (a refill may use fewer)
  double tail_tokens_per_s_ = 0;
};

}  // namespace sparksim
