// Synthetic traffic: the `--synthetic` spec language, an open-loop generator (Poisson or Gamma
// arrivals), and the length/domain sampler that closed-loop users draw from.
//
// Spec: comma-separated key=value, e.g.
//   rate=5,cv=1.0,prompt=lognormal:1000:1.0,output=lognormal:200:0.8,domain=chat,duration_s=600
// Lengths: lognormal:MEDIAN:SIGMA (SIGMA = log-space std dev) | fixed:N | empirical:PATH
// (a file of one integer per line, sampled uniformly). domain=NAME or NAME:W/NAME:W/... mixes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/rng.hpp"
#include "traces/request_spec.hpp"

namespace sparksim {

struct LengthDistribution {
  enum class Kind { kLognormal, kFixed, kEmpirical } kind = Kind::kFixed;
  double median = 1;  // lognormal
  double sigma = 0;   // lognormal, log-space
  std::int64_t fixed = 1;
  std::vector<std::int64_t> empirical;  // loaded values
  std::string source;                   // the text it was parsed from, for reports
};

struct SyntheticSpec {
  double rate_per_s = 1.0;  // open loop only
  double cv = 1.0;          // inter-arrival coefficient of variation: 1 = Poisson, else Gamma
  LengthDistribution prompt;
  LengthDistribution output;
  std::vector<double> domain_weights;  // kDomainCount entries, sum 1
  double duration_s = 60.0;
  std::string text;  // the original spec string
};

// Throws InputError("--synthetic: ...") naming the offending key and the valid ones. prompt and
// output are required; rate (1/s), cv (1), domain (chat) and duration_s (60) default. Domain
// weights may omit ":W" (weight 1) and are normalised to sum 1. Values with spaces around them are
// trimmed.
SyntheticSpec parse_synthetic_spec(const std::string& text);

// Open-loop trace over [0, duration_s) (not rebased: the first arrival is the first draw).
// Deterministic in (spec, seed) under one standard library (see synthetic.cpp). Arrivals use stream
// kSyntheticArrivals, lengths and domains kSyntheticLengths, so length changes move no arrival.
Trace generate_synthetic_trace(const SyntheticSpec& spec, std::uint64_t seed);

// Draws one request's lengths and domain (arrival left 0): used by closed-loop users.
RequestSpec sample_request(const SyntheticSpec& spec, RngStream& rng);

}  // namespace sparksim
