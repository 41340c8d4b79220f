// Streaming metrics: per-request CSV rows as requests complete, counters, per-second bins.
#include "sim/metrics.hpp"

#include <algorithm>

#include "common/csv_row.hpp"

namespace sparksim {

namespace {
constexpr const char* kRequestsHeader =
    "request_id,domain,arrival_s,prompt_tokens,output_tokens,first_admitted_s,first_token_s,"
    "done_s,queue_ms,ttft_ms,tpot_ms,e2e_s,tok_s_per_user,decode_steps,tau,drafts_verified,"
    "drafts_accepted,preemptions,prefill_tokens_computed\n";
}

MetricsCollector::MetricsCollector(std::ostream* requests_csv) : requests_csv_(requests_csv) {
  if (requests_csv_) *requests_csv_ << kRequestsHeader;
}

PerSecondBin& MetricsCollector::bin(std::size_t index) {
  if (index >= bins_.size()) bins_.resize(index + 1);
  return bins_[index];
}

void MetricsCollector::prefetch_step() const {
  __builtin_prefetch(&counters_);
  __builtin_prefetch(reinterpret_cast<const char*>(&counters_) + sizeof(counters_) - 1);
  __builtin_prefetch(&pending_now_);
  __builtin_prefetch(&pending_by_tokens_[1]);
  __builtin_prefetch(&deferred_count_);
  __builtin_prefetch(&deferred_[std::min(deferred_count_, kDeferredAdds - 1)]);
  if (!bins_.empty()) __builtin_prefetch(&bins_.back());
}

void MetricsCollector::on_step(const StepRecord& s) {
  flush_gaps();
  auto& c = counters_;
  ++c.steps;
  if (s.lane == EngineLane::kPrefill) ++c.prefill_lane_steps;
  c.request_steps += s.decode_requests;
  c.verify_tokens += s.verify_tokens;
  c.drafts_verified += s.drafts_verified;
  c.drafts_accepted += s.drafts_accepted;
  c.decode_committed += s.decode_committed;
  c.output_tokens += s.decode_committed + s.first_tokens;
  c.prefill_tokens += s.prefill_tokens;
  c.kv_peak_reserved = std::max(c.kv_peak_reserved, s.kv_reserved);
  c.last_event = std::max(c.last_event, s.end);

  PerSecondBin& end_bin = bin(static_cast<std::size_t>(s.end / kNanosPerSecond));
  ++end_bin.steps;
  end_bin.request_steps += s.decode_requests;
  end_bin.verify_tokens += s.verify_tokens;
  end_bin.decode_committed += s.decode_committed;
  end_bin.output_tokens += s.decode_committed + s.first_tokens;
  if (s.lane != EngineLane::kMain) return;
  // Spread running × duration over the seconds the step overlaps.
  for (SimTime t = s.start; t < s.end;) {
    const SimTime second = t / kNanosPerSecond;
    const SimTime until = std::min(s.end, (second + 1) * kNanosPerSecond);
    bin(static_cast<std::size_t>(second)).running_request_seconds +=
        static_cast<double>(s.running) * sim_time_to_seconds(until - t);
    t = until;
  }
}

// Inline (defined before its callers): one replica calls it twice per distinct gap, and the
// call itself was most of its cost there.
inline void MetricsCollector::defer(ItlKind histogram, double value, std::int64_t weight) const {
  if (!batch_itl_adds_) {
    (histogram == ItlKind::kStep ? itl_step_ms_ : itl_token_ms_).add(value, weight);
    return;
  }
  if (deferred_count_ == kDeferredAdds) apply_deferred();
  deferred_[deferred_count_++] = DeferredAdd{histogram, value, weight};
}

void MetricsCollector::add_gap(SimTime now, SimTime previous, std::int64_t tokens) {
  if (now != pending_now_ || previous != pending_previous_) {
    flush_gaps();
    pending_now_ = now;
    pending_previous_ = previous;
  }
  if (tokens < kPendingTokens) {
    if (pending_by_tokens_[static_cast<std::size_t>(tokens)]++ == 0) {
      pending_tokens_[pending_token_count_++] = static_cast<std::uint8_t>(tokens);
    }
    return;
  }
  const double gap_ms = sim_time_to_ms(now - previous);
  defer(ItlKind::kStep, gap_ms, 1);
  defer(ItlKind::kToken, gap_ms / static_cast<double>(tokens), tokens);
}

void MetricsCollector::apply_deferred() const {
  for (std::size_t i = 0; i < deferred_count_; ++i) {
    const DeferredAdd& d = deferred_[i];
    (d.histogram == ItlKind::kStep ? itl_step_ms_ : itl_token_ms_).add(d.value, d.weight);
  }
  deferred_count_ = 0;
}

void MetricsCollector::settle_gaps() const {
  flush_gaps();
  apply_deferred();
}

void MetricsCollector::flush_gaps() const {
  if (pending_token_count_ == 0) return;
  const double gap_ms = sim_time_to_ms(pending_now_ - pending_previous_);
  std::int64_t requests = 0;
  for (std::size_t i = 0; i < pending_token_count_; ++i) {
    const std::int64_t tokens = pending_tokens_[i];
    std::int64_t& count = pending_by_tokens_[static_cast<std::size_t>(tokens)];
    defer(ItlKind::kToken, gap_ms / static_cast<double>(tokens), tokens * count);
    requests += count;
    count = 0;
  }
  defer(ItlKind::kStep, gap_ms, requests);
  pending_token_count_ = 0;
}

void MetricsCollector::on_request_done(const Request& r) {
  ++counters_.requests_completed;
  counters_.last_event = std::max(counters_.last_event, r.done);
  ++bin(static_cast<std::size_t>(r.done / kNanosPerSecond)).completed;
  const double ttft_ms = sim_time_to_ms(r.first_token - r.arrival);
  const double e2e_s = sim_time_to_seconds(r.done - r.arrival);
  const double queue_ms = sim_time_to_ms(r.first_admitted - r.arrival);
  ttft_ms_.add(ttft_ms);
  e2e_s_.add(e2e_s);
  queue_ms_.add(queue_ms);
  double tpot_ms = 0, tok_s = 0;
  if (r.spec.output_tokens > 1) {
    tpot_ms =
        sim_time_to_ms(r.done - r.first_token) / static_cast<double>(r.spec.output_tokens - 1);
    tpot_ms_.add(tpot_ms);
    // A TPOT of 0 happens when all tokens arrive with the first (prefill + nothing left):
    // impossible here since decode steps take positive time, but guard the division anyway.
    tok_s = tpot_ms > 0 ? 1000.0 / tpot_ms : 0.0;
    tok_s_per_user_.add(tok_s);
  } else {
    ++counters_.single_token_requests;
  }
  if (!requests_csv_) return;
  // Times in s and ms are printed exactly from integer nanoseconds, and TPOT, tok/s/user and τ
  // exactly from the integers they are ratios of. TPOT and tok/s/user are empty for one-token
  // outputs (undefined, see the header).
  line_.clear();
  const bool has_tpot = r.spec.output_tokens > 1;
  const SimTime decode_span = r.done - r.first_token;
  CsvRow row(line_);
  row.integer(static_cast<std::int64_t>(r.id))
      .text(domain_name(r.spec.domain))
      .scaled(r.arrival, 9)
      .integer(r.spec.prompt_tokens)
      .integer(r.spec.output_tokens)
      .scaled(r.first_admitted, 9)
      .scaled(r.first_token, 9)
      .scaled(r.done, 9)
      .scaled(r.first_admitted - r.arrival, 6)
      .scaled(r.first_token - r.arrival, 6);
  if (has_tpot) {
    row.ratio(decode_span, (r.spec.output_tokens - 1) * 1'000'000, 6)  // TPOT in ms
        .scaled(r.done - r.arrival, 9);
    // tok/s/user = 1 / TPOT; a zero span (guarded as tok_s is above) prints 0.
    row.ratio(decode_span > 0 ? (r.spec.output_tokens - 1) * kNanosPerSecond : 0,
              std::max<SimTime>(decode_span, 1), 6);
  } else {
    row.text("").scaled(r.done - r.arrival, 9).text("");
  }
  row.integer(r.decode_steps)
      .ratio(r.decode_committed, std::max<std::int64_t>(r.decode_steps, 1), 6)
      .integer(r.drafts_verified)
      .integer(r.drafts_accepted)
      .integer(r.preemptions)
      .integer(r.prefill_tokens_computed)
      .end();
  *requests_csv_ << line_;
}

}  // namespace sparksim
