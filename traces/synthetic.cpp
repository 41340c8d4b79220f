// Synthetic traffic: spec parsing, the open-loop arrival generator, and the request sampler.
// Determinism: every draw comes from std:: distributions over std::mt19937_64 streams. The engine
// is fully specified by the standard, the distributions are not (each standard library may map
// engine output to values differently), so a (spec, seed) pair gives the same trace on every
// libstdc++ build, which is what CI and the goldens use, but not necessarily under libc++.
#include "traces/synthetic.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string_view>

#include "common/input_error.hpp"
#include "traces/arrival_burstiness.hpp"
#include "traces/field_parsing.hpp"
#include "traces/length_distribution.hpp"
#include "traces/text_lines.hpp"

namespace sparksim {

namespace {

constexpr std::array<std::string_view, 6> kKeys = {"rate",   "cv",     "prompt",
                                                   "output", "domain", "duration_s"};
// Guards memory: a trace this long (3 GB of requests) is a typo in rate or duration_s.
constexpr double kMaxExpectedRequests = 1e8;
// Burstiness bound (kMaxArrivalCv): past it almost every gap is ~0 and the arrival count over
// duration_s explodes however small rate * duration_s is (found by the synthetic-spec fuzzer).
constexpr double kMaxCv = kMaxArrivalCv;

std::string valid_keys() {
  std::string list;
  for (std::string_view key : kKeys) {
    if (!list.empty()) list += ", ";
    list += key;
  }
  return list;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// A finite number > 0 (or >= 0 when zero_ok), for key `key`.
double parse_positive(std::string_view key, std::string_view value, bool zero_ok = false) {
  double x = 0;
  const std::string prefix = "--synthetic: " + std::string(key) + " is ";
  if (!parse_double(value, x))
    throw InputError(prefix + quote_for_message(value) + "; must be a number");
  if (!std::isfinite(x)) throw InputError(prefix + std::string(value) + "; must be finite");
  if (zero_ok ? x < 0 : x <= 0) {
    throw InputError(prefix + std::string(value) + (zero_ok ? "; must be >= 0" : "; must be > 0"));
  }
  return x;
}

// "chat" or "math:0.3/code:0.3/chat:0.4"; a missing weight is 1. Returns normalised weights.
std::vector<double> parse_domain_mix(std::string_view value) {
  const std::string where = "--synthetic: domain=" + std::string(value);
  std::vector<double> weights(kDomainCount, 0.0);
  std::vector<bool> seen(kDomainCount, false);
  std::vector<std::string_view> parts;
  split_fields(value, '/', parts);
  double sum = 0;
  for (std::string_view part : parts) {
    const std::size_t colon = part.find(':');
    const std::string_view name = part.substr(0, colon);
    Domain domain = Domain::kChat;
    if (!parse_domain(name, domain)) {
      throw InputError(where + ": unknown domain " + quote_for_message(name) +
                       "; valid: " + valid_domain_list());
    }
    const auto index = static_cast<std::size_t>(domain);
    if (seen[index]) throw InputError(where + ": domain '" + std::string(name) + "' given twice");
    seen[index] = true;
    const double weight =
        colon == std::string_view::npos
            ? 1.0
            : parse_positive("domain weight of " + std::string(name), part.substr(colon + 1), true);
    weights[index] = weight;
    sum += weight;
  }
  if (!(sum > 0)) throw InputError(where + ": domain weights sum to 0; at least one must be > 0");
  for (double& w : weights) w /= sum;
  return weights;
}

Domain sample_domain(const std::vector<double>& weights, RngStream& rng) {
  // Always one draw, even for a single domain, so the stream's position after a request does
  // not depend on the mix.
  const double u = rng.uniform01();
  if (weights.size() != static_cast<std::size_t>(kDomainCount)) return Domain::kChat;
  double cumulative = 0;
  int last_positive = kDomainCount - 1;
  for (int i = 0; i < kDomainCount; ++i) {
    if (weights[static_cast<std::size_t>(i)] <= 0) continue;
    cumulative += weights[static_cast<std::size_t>(i)];
    last_positive = i;
    if (u < cumulative) return static_cast<Domain>(i);
  }
  // u above a cumulative sum that rounded to just under 1.
  return static_cast<Domain>(last_positive);
}

}  // namespace

SyntheticSpec parse_synthetic_spec(const std::string& text) {
  SyntheticSpec spec;
  spec.text = text;
  spec.domain_weights.assign(kDomainCount, 0.0);
  spec.domain_weights[static_cast<std::size_t>(Domain::kChat)] = 1.0;

  std::vector<std::string_view> items;
  split_fields(text, ',', items);
  std::vector<bool> seen(kKeys.size(), false);
  for (std::string_view raw_item : items) {
    const std::string_view item = trim(raw_item);
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      throw InputError("--synthetic: " + quote_for_message(item) +
                       " is not key=value; valid keys: " + valid_keys());
    }
    const std::string_view key = trim(item.substr(0, equals));
    const std::string_view value = trim(item.substr(equals + 1));
    const auto found = std::find(kKeys.begin(), kKeys.end(), key);
    if (found == kKeys.end()) {
      throw InputError("--synthetic: unknown key " + quote_for_message(key) +
                       "; valid keys: " + valid_keys());
    }
    const auto index = static_cast<std::size_t>(found - kKeys.begin());
    if (seen[index]) throw InputError("--synthetic: key '" + std::string(key) + "' given twice");
    seen[index] = true;

    if (key == "rate") {
      spec.rate_per_s = parse_positive(key, value);
    } else if (key == "cv") {
      spec.cv = parse_positive(key, value);
      if (spec.cv > kMaxCv) {
        throw InputError("--synthetic: cv is " + std::string(value) + "; must be in (0, 10]");
      }
    } else if (key == "prompt") {
      spec.prompt = parse_length_distribution(value, key);
    } else if (key == "output") {
      spec.output = parse_length_distribution(value, key);
    } else if (key == "domain") {
      spec.domain_weights = parse_domain_mix(value);
    } else if (key == "duration_s") {
      spec.duration_s = parse_positive(key, value);
      if (spec.duration_s > sim_time_to_seconds(kMaxSimTime)) {
        throw InputError("--synthetic: duration_s is " + std::string(value) +
                         "; must be <= " + std::to_string(kMaxSimTime / kNanosPerSecond));
      }
    }
  }
  // Lengths have no sensible default: a forgotten prompt= must not quietly mean 1-token prompts.
  for (std::string_view required : {"prompt", "output"}) {
    const auto index =
        static_cast<std::size_t>(std::find(kKeys.begin(), kKeys.end(), required) - kKeys.begin());
    if (!seen[index]) {
      throw InputError("--synthetic: missing key '" + std::string(required) + "' (e.g. " +
                       std::string(required) + "=lognormal:1000:1.0 or " + std::string(required) +
                       "=fixed:128)");
    }
  }
  if (spec.rate_per_s * spec.duration_s > kMaxExpectedRequests) {
    throw InputError("--synthetic: rate * duration_s is " +
                     std::to_string(spec.rate_per_s * spec.duration_s) +
                     " expected requests; at most 1e8");
  }
  return spec;
}

RequestSpec sample_request(const SyntheticSpec& spec, RngStream& rng) {
  RequestSpec request;
  request.prompt_tokens = sample_length(spec.prompt, rng);
  request.output_tokens = sample_length(spec.output, rng);
  request.domain = sample_domain(spec.domain_weights, rng);
  return request;
}

Trace generate_synthetic_trace(const SyntheticSpec& spec, std::uint64_t seed) {
  Trace trace;
  trace.report.source = spec.text;
  trace.report.format = "synthetic";
  // Separate streams: changing a length distribution must not move a single arrival.
  RngStream arrival_rng(seed, StreamId::kSyntheticArrivals);
  RngStream length_rng(seed, StreamId::kSyntheticLengths);

  // A renewal process at rate with gap cv (renewal_gap_s: Poisson at cv 1, else Gamma).
  const double expected = spec.rate_per_s * spec.duration_s;
  trace.requests.reserve(static_cast<std::size_t>(std::min(expected * 1.1 + 16, 1.2e8)));

  // Time accumulates in double seconds and is rounded per arrival, so rounding never compounds.
  const SimTime end = seconds_to_sim_time(spec.duration_s);
  double t = 0;
  while (true) {
    t += renewal_gap_s(arrival_rng, spec.rate_per_s, spec.cv);
    if (!(t < spec.duration_s)) break;
    const SimTime arrival = seconds_to_sim_time(t);
    if (arrival >= end) break;
    // Memory guard for an unlucky draw: the bound on rate * duration_s is on the mean only.
    if (static_cast<double>(trace.requests.size()) >= kMaxExpectedRequests) {
      throw InputError(
          "--synthetic: more than 1e8 arrivals drawn in duration_s; lower rate, cv "
          "or duration_s");
    }
    RequestSpec request = sample_request(spec, length_rng);
    request.arrival = arrival;
    trace.requests.push_back(request);
  }
  trace.report.rows_read = static_cast<std::int64_t>(trace.requests.size());
  trace.report.rows_kept = trace.report.rows_read;
  return trace;
}

}  // namespace sparksim
