// MetricsCollector: streams what the engine reports (steps, token commits, completions) into
// per-request rows, aggregate counters and per-second time series.
//
// Definitions (after vLLM's serving benchmark):
//  - TTFT: arrival → end of the step that produced the first output token.
//  - TPOT: (E2E − TTFT) / (output_tokens − 1); undefined for 1-token outputs (excluded, counted).
//  - tok/s/user: 1 / TPOT.
//  - ITL per step: time between two consecutive deliveries of tokens to a request (a speculative
//    step delivers several tokens at once); ITL per token: that gap divided by the tokens in the
//    delivery, one sample per token. vLLM reports the former; both are given.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/bounded_sample.hpp"
#include "common/distribution_summary.hpp"
#include "common/sim_time.hpp"
#include "sim/request.hpp"

namespace sparksim {

enum class EngineLane : std::uint8_t { kMain = 0, kPrefill = 1 };

struct StepRecord {
  SimTime start = 0;
  SimTime end = 0;
  EngineLane lane = EngineLane::kMain;
  std::int64_t decode_requests = 0;   // R
  std::int64_t verify_tokens = 0;     // Σ (1 + ℓ_r)
  std::int64_t drafts_verified = 0;   // Σ ℓ_r
  std::int64_t drafts_accepted = 0;   // Σ min(ℓ_r, accepted_r)
  std::int64_t decode_committed = 0;  // tokens committed by verification (capped at the output)
  std::int64_t prefill_tokens = 0;
  std::int64_t first_tokens = 0;  // tokens produced by prefills finishing in this step
  std::int64_t running = 0;       // requests holding KV during the step
  std::int64_t kv_reserved = 0;   // tokens reserved at the step's start
};

struct PerSecondBin {
  double running_request_seconds = 0;  // ∫ running dt over the bin (main lane)
  std::int64_t steps = 0;
  std::int64_t request_steps = 0;
  std::int64_t verify_tokens = 0;
  std::int64_t decode_committed = 0;
  std::int64_t output_tokens = 0;  // decode commits + first tokens
  std::int64_t completed = 0;
};

struct AggregateCounters {
  std::int64_t steps = 0;
  std::int64_t prefill_lane_steps = 0;
  std::int64_t request_steps = 0;
  std::int64_t verify_tokens = 0;
  std::int64_t drafts_verified = 0;
  std::int64_t drafts_accepted = 0;
  std::int64_t decode_committed = 0;
  std::int64_t output_tokens = 0;
  std::int64_t prefill_tokens = 0;
  std::int64_t preemptions = 0;
  std::int64_t requests_completed = 0;
  std::int64_t single_token_requests = 0;  // no TPOT
  std::int64_t kv_peak_reserved = 0;
  SimTime last_event = 0;
};

class MetricsCollector {
 public:
  // `requests_csv` may be null (no per-request file); the header is written immediately.
  explicit MetricsCollector(std::ostream* requests_csv);

  void on_step(const StepRecord& step);
  // `tokens` delivered to `request` at `now`; `previous` is its last delivery (-1 for the first).
  // Inline: it runs once per request-step; the common case (the same gap as the request before
  // it, a small count) only counts.
  void on_tokens(SimTime now, SimTime previous, std::int64_t tokens) {
    if (previous < 0 || tokens <= 0) return;
    if (now == pending_now_ && previous == pending_previous_ && tokens < kPendingTokens &&
        pending_by_tokens_[static_cast<std::size_t>(tokens)] > 0) {
      ++pending_by_tokens_[static_cast<std::size_t>(tokens)];
      return;
    }
    add_gap(now, previous, tokens);
  }
  void on_request_done(const Request& request);
  void on_preemption() { ++counters_.preemptions; }
  // Apply ITL histogram adds in batches (same adds, same order, so the same histograms): for a
  // cluster's replicas, whose histograms are out of cache at each step. One replica's stay in
  // cache, and batching would only cost it instructions.
  void batch_itl_adds() { batch_itl_adds_ = true; }
  // Cache hint (Engine::prefetch_step): the lines the next on_tokens/on_step calls write.
  void prefetch_step() const;

  const AggregateCounters& counters() const { return counters_; }
  const std::vector<PerSecondBin>& per_second() const { return bins_; }
  // Per-request summaries: exact percentiles up to BoundedSample's budget (2^20 requests), then
  // within request_percentile_relative_error() (bounded memory on replays of any length).
  DistributionSummary ttft_ms() const { return ttft_ms_.summarize(); }
  DistributionSummary tpot_ms() const { return tpot_ms_.summarize(); }
  DistributionSummary e2e_s() const { return e2e_s_.summarize(); }
  DistributionSummary tok_s_per_user() const { return tok_s_per_user_.summarize(); }
  DistributionSummary queue_ms() const { return queue_ms_.summarize(); }
  double request_percentile_relative_error() const { return ttft_ms_.relative_error(); }
  DistributionSummary itl_step_ms() const {
    settle_gaps();
    return itl_step_ms_.summarize();
  }
  DistributionSummary itl_token_ms() const {
    settle_gaps();
    return itl_token_ms_.summarize();
  }
  double itl_relative_error() const { return itl_step_ms_.relative_error(); }
  // The ITL histograms themselves, so a cluster can merge its replicas' (LogHistogram::merge).
  const LogHistogram& itl_step_histogram() const {
    settle_gaps();
    return itl_step_ms_;
  }
  const LogHistogram& itl_token_histogram() const {
    settle_gaps();
    return itl_token_ms_;
  }

 private:
  PerSecondBin& bin(std::size_t index);
  void add_gap(SimTime now, SimTime previous, std::int64_t tokens);  // on_tokens' general case
  // Moves the pending gaps to the deferred adds (applied once kDeferredAdds have gathered).
  // Const because readers call it: pending and deferred adds are adds not yet applied, not a
  // different state.
  void flush_gaps() const;
  // Applies every pending and deferred add to the ITL histograms, in the order they were made.
  void settle_gaps() const;
  void apply_deferred() const;
  enum class ItlKind : std::uint8_t { kStep, kToken };
  void defer(ItlKind histogram, double value, std::int64_t weight) const;
  std::ostream* requests_csv_;
  AggregateCounters counters_;
  std::vector<PerSecondBin> bins_;
  BoundedSample ttft_ms_, tpot_ms_, e2e_s_, tok_s_per_user_, queue_ms_;
  // Every request of a decode step gets its tokens at the same instant, almost always one step
  // after its previous ones, so most gaps repeat: they are counted per token count and added to
  // the histograms once per distinct gap (with a weight) instead of once per request.
  static constexpr std::int64_t kPendingTokens = 64;  // token counts batched; more go straight in
  mutable LogHistogram itl_step_ms_, itl_token_ms_;
  // Histogram adds in the order made, applied in batches: in a cluster a replica's histogram
  // buckets are out of cache by its next step, and a batch of one replica's adds mostly hits the
  // same few buckets, so it costs a few misses where one add per step cost one each.
  static constexpr std::size_t kDeferredAdds = 64;
  struct DeferredAdd {
    ItlKind histogram;
    double value;
    std::int64_t weight;
  };
  // What every step reads or writes sits together, in as few cache lines as it fits: a fleet
  // replica's collector is out of cache at each of its steps.
  mutable SimTime pending_now_ = -1, pending_previous_ = -1;
  mutable std::size_t deferred_count_ = 0;
  bool batch_itl_adds_ = false;
  // The token counts with a pending entry, in the order they first came: kept in the object,
  // beside pending_now_, not in a vector's own block (one cold cache line less per fleet step).
  mutable std::uint8_t pending_token_count_ = 0;
  mutable std::array<std::uint8_t, kPendingTokens> pending_tokens_{};
  mutable std::array<std::int64_t, kPendingTokens> pending_by_tokens_{};
  mutable std::array<DeferredAdd, kDeferredAdds> deferred_{};
  std::string line_;  // reused for each requests.csv row
};

}  // namespace sparksim
