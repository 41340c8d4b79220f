// SloTerm: one bound of the SLO a capacity plan must meet ("ttft_p99_ms<=2000"), parsed from
// `--slo` and measured on a fleet's pooled request samples (slo_spec.cpp).
#pragma once

#include <string>
#include <vector>

#include "experiments/run/request_samples.hpp"

namespace sparksim {

// One SLO term, e.g. "ttft_p99_ms<=2000" or "tok_s_per_user_p50>=80".
struct SloTerm {
  enum class Metric { kTtftMs, kTpotMs, kE2eS, kQueueMs, kTokSPerUser };
  std::string name;  // as written, e.g. "ttft_p99_ms"
  Metric metric = Metric::kTtftMs;
  bool mean = false;      // `_mean` instead of a percentile
  double percentile = 0;  // in (0, 100) when !mean
  bool at_most = true;    // "<=" (else ">=")
  double bound = 0;

  // The term's statistic over the pooled samples (0 for an empty sample).
  double measure(const RequestSamples& samples) const;
  bool holds(double value) const { return at_most ? value <= bound : value >= bound; }
  std::string text() const;  // "ttft_p99_ms<=2000"
};

// Where a metric's values are: in pooled samples and in one request's. TPOT and tok/s/user exist
// only for requests of more than one output token.
struct SloMetricFields {
  std::vector<double> RequestSamples::*pooled;
  double RequestSample::*one;
  bool multi_token_only;
};
const SloMetricFields& slo_metric_fields(SloTerm::Metric metric);

// Parses "ttft_p99_ms<=2000,tok_s_per_user_p50>=80". Names: ttft_{pQ|mean}_ms, tpot_{..}_ms,
// e2e_{..}_s, queue_{..}_ms, tok_s_per_user_{pQ|mean}, with Q in (0, 100) (p99, p99.9, p50).
// Throws one InputError("--slo: ...") listing every bad term.
std::vector<SloTerm> parse_slo_spec(const std::string& text);

}  // namespace sparksim
