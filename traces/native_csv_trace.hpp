// sparksim's own trace CSV: `arrival_s,prompt_tokens,output_tokens,domain` (or the first three
// columns only). The format for hand-written scenarios and converted traces, so it is strict:
// zero output tokens is an error here, not clipped as in third-party traces.
#pragma once

#include <string>
#include <string_view>

#include "traces/trace_loader.hpp"

namespace sparksim {

inline constexpr std::string_view kNativeCsvHeader = "arrival_s,prompt_tokens,output_tokens,domain";
inline constexpr std::string_view kNativeCsvHeaderNoDomain =
    "arrival_s,prompt_tokens,output_tokens";

bool is_native_csv_header(std::string_view first_line);

// Parses `text` (the bytes of `path`); LF or CRLF. arrival_s: seconds (decimal or scientific),
// finite, >= 0. Domain: the column; without one, options.domain or chat. options.domain, when
// set, also replaces a domain column (with a note).
Trace load_native_csv_trace(const std::string& path, std::string_view text,
                            const TraceOptions& options);

}  // namespace sparksim
