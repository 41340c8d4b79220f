// Random streams. Every draw comes from a stream derived from (seed, stream id) and passed in
// explicitly; there is no global generator. Two kinds:
//  - RngStream: a sequential std::mt19937_64 for generators (synthetic traces, think times);
//  - counter_uniform(): a stateless draw keyed by (key, counter), for per-request, per-step draws
//    whose value must not depend on which other requests share the batch (common random numbers
//    across policies) and which must cost no per-request generator state.
//
// Same seed, same output, byte for byte, on any standard library: the C++ standard fixes the
// engines' output (std::mt19937_64) but leaves the algorithms of std::*_distribution to each
// library, so no draw goes through one. Uniform doubles are a documented transform of the bits
// (uniform01_from_bits); every other distribution is Boost.Random's, whose code is the same
// wherever the same Boost version builds it. One known exception: the token-level mode's toy
// target LM and drafters (sim/acceptance/token_level/) still draw their random weights with
// std::normal_distribution, so their instance for a given lm_seed may differ between standard
// libraries (libstdc++ builds every test's expectation); moving them changes the instance the
// suffix-decay test's measured numbers describe, which is left for a change that re-measures it.
#pragma once

#include <cstdint>
#include <random>

#include <boost/random/exponential_distribution.hpp>
#include <boost/random/gamma_distribution.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "common/random_bits.hpp"

namespace sparksim {

// Named stream ids, so two subsystems never share a stream by accident.
enum class StreamId : std::uint64_t {
  kSyntheticArrivals = 1,
  kSyntheticLengths = 2,
  kClosedLoop = 3,
  kAcceptance = 4,
  kTraceSpreading = 5,
  kPolicy = 6,
  kArrivalBurstiness = 7,  // --arrival-cv: a trace's re-drawn inter-arrival gaps
  // Acceptance models (issue 3), numbered apart so other subsystems' additions cannot collide.
  kAcceptanceDifficulty = 40,  // per-request difficulty and initial latent state
  kAcceptanceLatent = 41,      // per-step innovations of the latent state
  kAcceptanceSignal = 42,      // confidence-head signals and unverified positions' outcomes
  kAcceptanceTuning = 43,      // Monte Carlo sample that maps auc=/ece= targets to parameters
  kStsSplit = 44,              // fit / held-out split of `sparksim calibrate`
};

class RngStream {
 public:
  RngStream(std::uint64_t seed, StreamId stream)
      : engine_(derive_seed(seed, static_cast<std::uint64_t>(stream))) {}
  std::mt19937_64& engine() { return engine_; }
  // Uniform in [0, 1), from one engine output.
  double uniform01() { return uniform01_from_bits(engine_()); }
  // Standard normal (Boost.Random's ziggurat).
  double standard_normal() { return boost::random::normal_distribution<double>(0.0, 1.0)(engine_); }
  // Exponential with the given rate (> 0).
  double exponential(double rate) {
    return boost::random::exponential_distribution<double>(rate)(engine_);
  }
  // Gamma with the given shape and scale (both > 0).
  double gamma(double shape, double scale) {
    return boost::random::gamma_distribution<double>(shape, scale)(engine_);
  }
  // Uniform integer in [0, n), n >= 1.
  std::size_t index(std::size_t n) {
    return boost::random::uniform_int_distribution<std::size_t>(0, n - 1)(engine_);
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace sparksim
