// Re-drawn inter-arrival gaps (see the header for the contract and why).
#include "traces/arrival_burstiness.hpp"

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "common/sim_time.hpp"

namespace sparksim {

namespace {

std::string text_of(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

}  // namespace

double renewal_gap_s(RngStream& rng, double rate_per_s, double cv) {
  if (cv == 1.0) return rng.exponential(rate_per_s);
  return rng.gamma(1.0 / (cv * cv), cv * cv / rate_per_s);
}

double arrival_gap_cv(const Trace& trace) {
  const std::size_t n = trace.requests.size();
  if (n < 3) return 0;
  double sum = 0;
  for (std::size_t i = 1; i < n; ++i) {
    sum += sim_time_to_seconds(trace.requests[i].arrival - trace.requests[i - 1].arrival);
  }
  const double mean = sum / static_cast<double>(n - 1);
  if (!(mean > 0)) return 0;
  double squares = 0;
  for (std::size_t i = 1; i < n; ++i) {
    const double d =
        sim_time_to_seconds(trace.requests[i].arrival - trace.requests[i - 1].arrival) - mean;
    squares += d * d;
  }
  return std::sqrt(squares / static_cast<double>(n - 2)) / mean;
}

void redraw_arrival_gaps(Trace& trace, double cv, std::uint64_t seed) {
  if (!std::isfinite(cv) || !(cv > 0) || cv > kMaxArrivalCv) {
    throw InputError("--arrival-cv: cv is " + text_of(cv) + "; must be in (0, " +
                     text_of(kMaxArrivalCv) + "]");
  }
  const std::size_t n = trace.requests.size();
  const SimTime first = n > 0 ? trace.requests.front().arrival : 0;
  const SimTime span = n > 0 ? trace.requests.back().arrival - first : 0;
  if (n < 2 || span <= 0) {
    throw InputError(
        "--arrival-cv: needs at least two requests arriving at different times to take a mean "
        "rate from (the workload has " +
        std::to_string(n) + ")");
  }
  const double rate_per_s = static_cast<double>(n - 1) / sim_time_to_seconds(span);
  const double source_cv = arrival_gap_cv(trace);
  // Time accumulates in double seconds and is rounded per arrival, so rounding never compounds;
  // every arrival is computed before any is written, so a failure leaves the trace as it was.
  RngStream rng(seed, StreamId::kArrivalBurstiness);
  std::vector<SimTime> arrivals(n);
  const double start_s = sim_time_to_seconds(first);
  double t = start_s;
  arrivals[0] = first;
  for (std::size_t i = 1; i < n; ++i) {
    t += renewal_gap_s(rng, rate_per_s, cv);
    if (!(t < sim_time_to_seconds(kMaxSimTime))) {
      throw InputError("--arrival-cv: cv " + text_of(cv) + " drew an arrival past " +
                       text_of(sim_time_to_seconds(kMaxSimTime)) +
                       " s, the simulator's time limit");
    }
    arrivals[i] = seconds_to_sim_time(t);
  }
  for (std::size_t i = 0; i < n; ++i) trace.requests[i].arrival = arrivals[i];
  trace.report.notes.push_back(
      "inter-arrival gaps re-drawn (arrival cv): gamma renewal process, cv " + text_of(cv) +
      " (the source's gaps: " + text_of(source_cv) + "), the source's mean rate " +
      text_of(rate_per_s) + "/s, seed " + std::to_string(seed) +
      "; each request keeps its lengths and place in the order");
}

}  // namespace sparksim
