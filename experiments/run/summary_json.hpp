// Pieces of summary.json shared by `sparksim run` and `sparksim cluster`, so that both write the
// same keys the same way: what ran, the metrics block, a distribution's summary and a trace's load
// report.
#pragma once

#include <nlohmann/json.hpp>

#include "common/distribution_summary.hpp"
#include "common/sim_time.hpp"
#include "profiles/profile.hpp"
#include "profiles/sps_belief.hpp"
#include "sim/acceptance/acceptance_model.hpp"
#include "sim/metrics.hpp"
#include "traces/request_spec.hpp"

namespace sparksim {

// What ran, the summary's first keys (sparksim_version ... acceptance). A replay reports the
// acceptance spec recorded in its log (`acceptance.reproduces()`), so it reproduces the summary.
void put_run_identity(nlohmann::ordered_json& summary, const Profile& profile,
                      const std::string& drafter, const std::string& policy, SpsBelief sps,
                      const std::string& acceptance_spec, const AcceptanceModel& acceptance);

// The metrics part of the summary (requests_total ... kv_peak_reserved_tokens), for one replica or
// a whole cluster.
struct MetricsTotals {
  std::int64_t requests_total = 0;
  std::int64_t requests_rejected_kv = 0;
  AggregateCounters counters;
  SimTime end_time = 0;
  int gpus = 1;
  DistributionSummary ttft_ms, tpot_ms, e2e_s, tok_s_per_user, queue_ms, itl_step_ms, itl_token_ms;
  double itl_relative_error = 0;
  // 0: TTFT ... queue percentiles exact; else their bound (past 2^20 requests, bounded memory).
  double request_relative_error = 0;
  std::int64_t kv_capacity_tokens = 0;
};

// The collector's counters and distributions; the caller sets the request counts, end time, GPUs
// and KV capacity, which the collector does not know.
MetricsTotals totals_of(const MetricsCollector& metrics);
// Writes `totals` into `summary`, keys in the documented order.
void put_metrics(nlohmann::ordered_json& summary, const MetricsTotals& totals);

// {"mean", "p10", "p50", "p90", "p99", "count"}.
nlohmann::ordered_json to_json(const DistributionSummary& s);
// Rows read, kept, sorted, dropped and clipped, with the loader's notes.
nlohmann::ordered_json load_report_json(const LoadReport& r);

}  // namespace sparksim
