// RequestSamples: the per-request latency and speed samples of one or more runs, read back from
// the requests.csv text that execute_run streams, or taken from the completed requests themselves
// with the same values. Experiment drivers need them for percentiles the summary does not carry (a
// config's own percentile) and for pooling replicas (capacity plans).
#pragma once

#include <string_view>
#include <vector>

#include "sim/request.hpp"

namespace sparksim {

// One completed request's samples, exactly the values its requests.csv row reads back as.
struct RequestSample {
  double ttft_ms = 0, e2e_s = 0, queue_ms = 0;
  bool has_tpot = false;  // false for a one-token output (no TPOT, no tok/s/user)
  double tpot_ms = 0, tok_s_per_user = 0;
};
RequestSample request_sample(const Request& done);

struct RequestSamples {
  // One entry per completed request; tpot_ms and tok_s_per_user skip single-token requests
  // (they have no TPOT, exactly as the summary excludes them).
  std::vector<double> ttft_ms, tpot_ms, e2e_s, queue_ms, tok_s_per_user;

  // Adds `text` (a whole requests.csv, header included). Throws InputError on a malformed file.
  void add_requests_csv(std::string_view text, const std::string_view path = "requests.csv");
  // Adds one completed request (what add_requests_csv adds for its row).
  void add(const RequestSample& sample);
  // Appends another set (pooling replicas).
  void append(const RequestSamples& other);
};

// Percentile q in (0, 100) of `values` (linear interpolation between closest ranks, as the
// summaries use); 0 for an empty sample. Sorts a copy.
double sample_percentile(std::vector<double> values, double q);
// Mean in sorted order (independent of the order samples were pooled in); 0 for an empty sample.
double sample_mean(std::vector<double> values);

}  // namespace sparksim
