// Strict number parsing for trace fields, with the project's `path:line: what` errors.
// std::from_chars, not stod/atoi: it ignores the locale and lets us reject partial parses such
// as "12abc" or "1e3" in an integer column, which the C functions accept silently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/sim_time.hpp"

namespace sparksim {

// True when all of `text` is a base-10 integer that fits int64 (optional leading '-', no '+',
// no spaces).
bool parse_int64(std::string_view text, std::int64_t& out);

// True when all of `text` is a decimal or scientific double. Accepts "nan" and "inf": callers
// decide, so they can name the problem instead of calling it non-numeric.
bool parse_double(std::string_view text, double& out);

// A token count column: an integer in [min_value, kMaxTokensPerRequest]. Throws
// InputError(path, line, "NAME is VALUE; must be ...") otherwise.
std::int64_t parse_token_count(std::string_view field, std::string_view name,
                               std::int64_t min_value, const std::string& path, std::int64_t line);

// The range half of parse_token_count, for values that arrive already typed (JSON).
void check_token_count(std::int64_t value, std::string_view name, std::int64_t min_value,
                       const std::string& path, std::int64_t line);

// An arrival in seconds: finite, >= 0 and at most kMaxSimTime. Rounds to the nearest ns.
SimTime parse_arrival_seconds(std::string_view field, std::string_view name,
                              const std::string& path, std::int64_t line);

}  // namespace sparksim
