// Arrival burstiness as a knob on any open-loop workload: a trace's inter-arrival gaps re-drawn
// from a gamma renewal process with the trace's own mean rate and a chosen coefficient of
// variation (cv), each request keeping its lengths, domain and place in the order. It answers
// "what if our traffic were burstier (or smoother) than this trace" without changing anything
// else; the synthetic generator draws its gaps with the same renewal_gap_s.
#pragma once

#include <cstdint>

#include "common/rng.hpp"
#include "traces/request_spec.hpp"

namespace sparksim {

// Largest accepted cv (synthetic `cv=` and --arrival-cv): gamma gaps with cv 10 (shape 0.01)
// are already far burstier than any published serving trace; past it almost every gap is ~0.
inline constexpr double kMaxArrivalCv = 10.0;

// One inter-arrival gap in seconds of a renewal process with `rate_per_s` arrivals per second
// and coefficient of variation `cv`: exponential (the Poisson process) when cv is 1, else gamma
// with shape 1/cv^2 and scale cv^2/rate (mean 1/rate, standard deviation cv/rate).
double renewal_gap_s(RngStream& rng, double rate_per_s, double cv);

// Replaces the gaps between consecutive arrivals by renewal_gap_s draws at the trace's mean rate
// ((n - 1) / (last arrival - first arrival)) and `cv`, from stream kArrivalBurstiness of `seed`.
// The first arrival stays where it was; the i-th request keeps its prompt, output and domain and
// stays i-th. The mean rate is kept in expectation (the re-drawn span is random, so it is not
// pinned: pinning it would change the gaps' distribution). Throws InputError("--arrival-cv: ...")
// before changing anything for a cv not in (0, kMaxArrivalCv], a trace with fewer than two
// requests or all arrivals at one instant, or a draw whose last arrival passes kMaxSimTime. Notes
// the change in the trace's report with the source's own gap cv.
void redraw_arrival_gaps(Trace& trace, double cv, std::uint64_t seed);

// The sample coefficient of variation of a trace's inter-arrival gaps (standard deviation with
// n - 1 over the mean); 0 for fewer than three requests or a zero mean gap.
double arrival_gap_cv(const Trace& trace);

}  // namespace sparksim
