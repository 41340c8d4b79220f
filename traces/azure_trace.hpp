// Azure LLM inference trace loader (AzurePublicDataset 2023: `TIMESTAMP,ContextTokens,
// GeneratedTokens`, naive wall-clock timestamps with 100 ns digits, CRLF line ends).
// Arrivals become exact integer ns after the first row, so the replay keeps the file's order.
#pragma once

#include <string>
#include <string_view>

#include "traces/trace_loader.hpp"

namespace sparksim {

inline constexpr std::string_view kAzureHeader = "TIMESTAMP,ContextTokens,GeneratedTokens";

bool is_azure_header(std::string_view first_line);

// Parses `text` (the bytes of `path`). Domain: options.domain, else code when the file name
// contains "code" (the code-service file), else chat. A GeneratedTokens of 0 (none in the 2023
// files) is clipped to 1 and counted: a request must produce a token to be simulated.
Trace load_azure_trace(const std::string& path, std::string_view text, const TraceOptions& options);

}  // namespace sparksim
