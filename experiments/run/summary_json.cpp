// Shared summary.json pieces (see the header).
#include "experiments/run/summary_json.hpp"

#include "common/version.hpp"

namespace sparksim {

void put_run_identity(nlohmann::ordered_json& summary, const Profile& profile,
                      const std::string& drafter, const std::string& policy, SpsBelief sps,
                      const std::string& acceptance_spec, const AcceptanceModel& acceptance) {
  summary["sparksim_version"] = sparksim_version();
  summary["profile_source"] = profile.provenance.source;
  summary["profile_label"] = profile.label();
  summary["drafter"] = drafter;
  summary["policy"] = policy;
  summary["sps"] = sps_belief_name(sps);
  summary["sps_belief"] = sps_belief_description(sps);
  summary["acceptance"] =
      acceptance.reproduces().empty() ? acceptance_spec : acceptance.reproduces();
}

nlohmann::ordered_json to_json(const DistributionSummary& s) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j.get_ref<nlohmann::ordered_json::object_t&>().reserve(6);  // no regrowth: see the keys below
  j["mean"] = s.mean;
  j["p10"] = s.p10;
  j["p50"] = s.p50;
  j["p90"] = s.p90;
  j["p99"] = s.p99;
  j["count"] = s.count;
  return j;
}

nlohmann::ordered_json load_report_json(const LoadReport& r) {
  nlohmann::ordered_json j;
  j["source"] = r.source;
  j["format"] = r.format;
  j["rows_read"] = r.rows_read;
  j["rows_kept"] = r.rows_kept;
  j["rows_sorted"] = r.rows_sorted;
  j["rows_dropped"] = r.rows_dropped;
  j["rows_clipped"] = r.rows_clipped;
  j["notes"] = r.notes;
  return j;
}

namespace {

double per(double num, double den) {
  return den > 0 ? num / den : 0.0;
}

}  // namespace

MetricsTotals totals_of(const MetricsCollector& m) {
  MetricsTotals t;
  t.counters = m.counters();
  t.ttft_ms = m.ttft_ms();
  t.tpot_ms = m.tpot_ms();
  t.e2e_s = m.e2e_s();
  t.tok_s_per_user = m.tok_s_per_user();
  t.queue_ms = m.queue_ms();
  t.itl_step_ms = m.itl_step_ms();
  t.itl_token_ms = m.itl_token_ms();
  t.itl_relative_error = m.itl_relative_error();
  t.request_relative_error = m.request_percentile_relative_error();
  return t;
}

void put_metrics(nlohmann::ordered_json& s, const MetricsTotals& m) {
  const AggregateCounters& c = m.counters;
  const double duration_s = sim_time_to_seconds(m.end_time);
  s["requests_total"] = m.requests_total;
  s["requests_completed"] = c.requests_completed;
  s["requests_rejected_kv"] = m.requests_rejected_kv;
  s["output_tokens"] = c.output_tokens;
  s["sim_duration_s"] = duration_s;
  s["throughput_tok_s"] = per(static_cast<double>(c.output_tokens), duration_s);
  s["throughput_tok_s_per_gpu"] = per(static_cast<double>(c.output_tokens), duration_s) / m.gpus;
  s["gpus"] = m.gpus;
  s["request_throughput_req_s"] = per(static_cast<double>(c.requests_completed), duration_s);
  s["ttft_ms"] = to_json(m.ttft_ms);
  s["tpot_ms"] = to_json(m.tpot_ms);
  s["e2e_s"] = to_json(m.e2e_s);
  s["tok_s_per_user"] = to_json(m.tok_s_per_user);
  s["queue_ms"] = to_json(m.queue_ms);
  s["itl_step_ms"] = to_json(m.itl_step_ms);
  s["itl_token_ms"] = to_json(m.itl_token_ms);
  s["itl_percentile_relative_error"] = m.itl_relative_error;
  s["request_percentile_relative_error"] = m.request_relative_error;
  s["tpot_excluded_single_token_requests"] = c.single_token_requests;
  s["tau_mean"] =
      per(static_cast<double>(c.decode_committed), static_cast<double>(c.request_steps));
  s["verify_tokens_per_request_step_mean"] =
      per(static_cast<double>(c.verify_tokens), static_cast<double>(c.request_steps));
  s["rejected_draft_frac"] = per(static_cast<double>(c.drafts_verified - c.drafts_accepted),
                                 static_cast<double>(c.drafts_verified));
  s["steps"] = c.steps;
  s["prefill_lane_steps"] = c.prefill_lane_steps;
  s["request_steps"] = c.request_steps;
  s["prefill_tokens"] = c.prefill_tokens;
  s["preemptions"] = c.preemptions;
  s["kv_capacity_tokens"] = m.kv_capacity_tokens;
  s["kv_peak_reserved_tokens"] = c.kv_peak_reserved;
}

}  // namespace sparksim
