// SimTime: simulated time as integer nanoseconds, so event order never depends on float rounding.
// int64 nanoseconds cover 292 years; conversions from seconds reject values that would overflow.
#pragma once

#include <cmath>
#include <cstdint>

namespace sparksim {

using SimTime = std::int64_t;  // nanoseconds since the start of the simulation

inline constexpr SimTime kNanosPerSecond = 1'000'000'000;
// Largest time any accepted input may produce (about 31 years): leaves headroom for sums.
inline constexpr SimTime kMaxSimTime = SimTime{1'000'000'000} * 1'000'000'000;
// Longest single step the time model may return (about 11.6 days): with arrivals capped at
// kMaxSimTime, int64 nanoseconds then hold millions of such steps past the last arrival, and the
// engine refuses to go past kMaxSimTime * 8 rather than overflow.
inline constexpr SimTime kMaxStepTime = SimTime{1'000'000} * 1'000'000'000;

// Rounds to the nearest nanosecond. Callers validate that `seconds` is finite and in range.
inline SimTime seconds_to_sim_time(double seconds) {
  return static_cast<SimTime>(std::llround(seconds * 1e9));
}
inline double sim_time_to_seconds(SimTime t) {
  return static_cast<double>(t) * 1e-9;
}
inline double sim_time_to_ms(SimTime t) {
  return static_cast<double>(t) * 1e-6;
}

}  // namespace sparksim
