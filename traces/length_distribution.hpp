// Token-length distributions for synthetic traffic: parsing `lognormal:MEDIAN:SIGMA`, `fixed:N`
// and `empirical:PATH`, and drawing integer lengths from them. Kept apart from the arrival
// process so prompt and output lengths share one parser and one sampler.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/rng.hpp"
#include "traces/synthetic.hpp"

namespace sparksim {

// Parses one length spec; `key` (prompt, output) names it in errors:
// InputError("--synthetic: prompt=lognormal:0:1: median is 0; must be >= 1"). Requires
// MEDIAN >= 1 and finite, SIGMA >= 0 and finite, 1 <= N <= kMaxTokensPerRequest. PATH is the rest
// of the text after "empirical:" (it may hold ':' but not ',', the spec's separator).
LengthDistribution parse_length_distribution(std::string_view text, std::string_view key);

// One positive integer per line (LF or CRLF, empty lines ignored), each <= kMaxTokensPerRequest.
// Throws InputError(`path:line: length is ...`), or `path: no lengths` for a file without any.
std::vector<std::int64_t> load_empirical_lengths(const std::string& path);

// Draws a length in [1, kMaxTokensPerRequest]. Lognormal draws are exp(ln(median) + sigma * z),
// z ~ N(0, 1), rounded to the nearest integer and clamped into that range (a sigma-1 lognormal
// falls below 0.5 tokens now and then); fixed draws nothing; empirical picks a value uniformly.
std::int64_t sample_length(const LengthDistribution& distribution, RngStream& rng);

}  // namespace sparksim
