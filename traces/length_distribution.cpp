// Length-distribution parsing and sampling for synthetic traffic.
#include "traces/length_distribution.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "common/input_error.hpp"
#include "traces/field_parsing.hpp"
#include "traces/text_lines.hpp"

namespace sparksim {

namespace {

constexpr std::string_view kValidKinds = "lognormal:MEDIAN:SIGMA, fixed:N, empirical:PATH";

double parse_parameter(std::string_view text, std::string_view name, const std::string& where) {
  double value = 0;
  if (!parse_double(text, value)) {
    throw InputError(where + ": " + std::string(name) + " is " + quote_for_message(text) +
                     "; must be a number");
  }
  if (!std::isfinite(value)) {
    throw InputError(where + ": " + std::string(name) + " is " + std::string(text) +
                     "; must be finite");
  }
  return value;
}

}  // namespace

LengthDistribution parse_length_distribution(std::string_view text, std::string_view key) {
  const std::string where = "--synthetic: " + std::string(key) + "=" + std::string(text);
  LengthDistribution distribution;
  distribution.source = std::string(text);
  const std::size_t colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  const std::string_view rest = colon == std::string_view::npos ? "" : text.substr(colon + 1);

  if (kind == "lognormal") {
    const std::size_t second = rest.find(':');
    if (colon == std::string_view::npos || second == std::string_view::npos) {
      throw InputError(where + ": expected lognormal:MEDIAN:SIGMA");
    }
    distribution.kind = LengthDistribution::Kind::kLognormal;
    distribution.median = parse_parameter(rest.substr(0, second), "median", where);
    distribution.sigma = parse_parameter(rest.substr(second + 1), "sigma", where);
    if (distribution.median < 1) {
      throw InputError(where + ": median is " + std::string(rest.substr(0, second)) +
                       "; must be >= 1");
    }
    if (distribution.median > static_cast<double>(kMaxTokensPerRequest)) {
      throw InputError(where + ": median is " + std::string(rest.substr(0, second)) +
                       "; must be <= " + std::to_string(kMaxTokensPerRequest));
    }
    if (distribution.sigma < 0) {
      throw InputError(where + ": sigma is " + std::string(rest.substr(second + 1)) +
                       "; must be >= 0");
    }
    return distribution;
  }
  if (kind == "fixed") {
    if (colon == std::string_view::npos) throw InputError(where + ": expected fixed:N");
    std::int64_t n = 0;
    if (!parse_int64(rest, n)) {
      throw InputError(where + ": N is " + quote_for_message(rest) + "; must be an integer");
    }
    if (n < 1 || n > kMaxTokensPerRequest) {
      throw InputError(where + ": N is " + std::to_string(n) + "; must be in [1, " +
                       std::to_string(kMaxTokensPerRequest) + "]");
    }
    distribution.kind = LengthDistribution::Kind::kFixed;
    distribution.fixed = n;
    return distribution;
  }
  if (kind == "empirical") {
    if (rest.empty()) throw InputError(where + ": expected empirical:PATH");
    distribution.kind = LengthDistribution::Kind::kEmpirical;
    distribution.empirical = load_empirical_lengths(std::string(rest));
    return distribution;
  }
  throw InputError(where + ": unknown length distribution " + quote_for_message(kind) +
                   "; valid: " + std::string(kValidKinds));
}

std::vector<std::int64_t> load_empirical_lengths(const std::string& path) {
  const std::string text = read_text_file(path);
  std::vector<std::int64_t> lengths;
  LineCursor cursor(text);
  std::string_view line;
  while (cursor.next(line)) {
    if (line.empty()) continue;
    lengths.push_back(parse_token_count(line, "length", 1, path, cursor.line_number()));
  }
  if (lengths.empty()) throw InputError(path, 0, "no lengths (expected one integer per line)");
  return lengths;
}

std::int64_t sample_length(const LengthDistribution& distribution, RngStream& rng) {
  switch (distribution.kind) {
    case LengthDistribution::Kind::kFixed:
      return distribution.fixed;
    case LengthDistribution::Kind::kLognormal: {
      // Through a standard normal rather than a lognormal distribution: sigma 0 is allowed
      // (a lognormal distribution requires s > 0), and every draw consumes the same engine output
      // whatever the parameters.
      const double z = rng.standard_normal();
      const double x = distribution.median * std::exp(distribution.sigma * z);
      constexpr auto kMax = static_cast<double>(kMaxTokensPerRequest);
      if (!(x < kMax)) return kMaxTokensPerRequest;  // also catches +inf
      return std::max<std::int64_t>(1, std::llround(x));
    }
    case LengthDistribution::Kind::kEmpirical: {
      if (distribution.empirical.empty()) {
        throw std::logic_error("empirical length distribution without values");
      }
      return distribution.empirical[rng.index(distribution.empirical.size())];
    }
  }
  return 1;
}

}  // namespace sparksim
