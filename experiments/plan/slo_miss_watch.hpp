// SloMissWatch: follows a fleet's requests as they complete and says when its SLO can no longer be
// met whatever the requests still running do, so a capacity plan can stop simulating a replica
// count that misses (most of a search's counts) instead of running it to the end.
//
// Certain means: the final sample is the workload's requests (all of them complete unless one is
// rejected, and a rejection misses the SLO by itself), and the values already seen fix the term's
// statistic beyond its bound. For a percentile (sorted_percentile: linear interpolation between
// ranks lo = floor(q/100 × (M-1)) and hi = min(lo+1, M-1), or lo alone on a whole rank), "≤ bound"
// is lost once M - lo values exceed the bound (then the sorted values at lo and hi both do), and
// "≥ bound" once hi + 1 values are below it. Between two ranks this can be later than necessary
// (the value at lo may be close enough to the bound for the interpolation to cross it), never
// earlier. A mean "≤ bound" is lost once the values seen, all ≥ 0, already sum past M × bound;
// a mean "≥ bound" is never certain early (one late value can lift it). The "≥" and mean tests keep
// a margin of 1e-9 of the bound, so the floating-point interpolation and summation of the final
// statistic cannot land back on the bound's side.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "experiments/plan/slo_term.hpp"
#include "experiments/run/request_samples.hpp"

namespace sparksim {

class SloMissWatch {
 public:
  // `requests`: the workload's requests (the final sample of TTFT, E2E and queue time);
  // `multi_token_requests`: those with more than one output token (of TPOT and tok/s/user).
  SloMissWatch(std::span<const SloTerm> terms, std::int64_t requests,
               std::int64_t multi_token_requests);

  // Counts one completed request; true once a miss is certain (and ever after).
  bool add(const RequestSample& sample);
  // Every term already lost and by how much, e.g. "ttft_p99_ms > 2000 certain: 5999 of 599657
  // over 2000 (at most 5997 may be)"; empty while none is.
  std::string reason() const;

 private:
  struct Watched {
    const SloTerm* term;
    std::int64_t sample_size = 0;  // M: the final number of values
    std::int64_t needed = 0;       // violating values that make the miss certain (percentile)
    std::int64_t violating = 0;    // seen so far
    long double sum = 0;           // mean "≤": the values seen
    bool lost = false;
  };
  void update(Watched& w, double value);
  std::vector<Watched> watched_;
  bool certain_ = false;
};

}  // namespace sparksim
