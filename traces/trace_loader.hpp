// Trace file loaders: Azure LLM inference CSV, Mooncake JSONL, and sparksim's native CSV.
// Every loader validates every row and throws InputError(`path:line: what`) on the first bad one;
// out-of-order arrivals are stable-sorted and counted in the LoadReport.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "traces/request_spec.hpp"

namespace sparksim {

enum class TraceFormat { kAzure, kMooncake, kNativeCsv };

struct TraceOptions {
  std::optional<TraceFormat> format;  // unset: detect from header / .jsonl extension
  std::optional<Domain> domain;       // unset: the format's default (Azure code file -> code, ...)
  bool spread_buckets = false;        // Mooncake: spread each 3 s timestamp bucket uniformly
};

// One row of the trace-format registry. load_trace dispatches through this table; detection
// tries `extension` first, then `matches_header` on the file's first line.
struct TraceFormatInfo {
  TraceFormat format;
  std::string_view name;         // as parse_trace_format accepts it and LoadReport::format holds it
  std::string_view description;  // one line, for `help` listings
  std::string_view recognised_by;  // how detection knows it, for "unrecognised header" messages
  std::string_view extension;      // file names ending in this select the format ("" = none)
  bool (*matches_header)(std::string_view first_line);  // nullptr: detected by extension only
  // Parses the bytes `text` of `path` into a finished (validated, sorted, rebased) trace.
  Trace (*load)(const std::string& path, std::string_view text, const TraceOptions& options);
  std::string_view example;  // a small valid file, so the registry's conformance test covers it
};

// The registry, in a fixed order. Names are unique (checked by the conformance test).
std::span<const TraceFormatInfo> trace_formats();
const TraceFormatInfo& trace_format_info(TraceFormat format);

// Parses "azure" | "mooncake" | "csv"; throws InputError listing the valid names otherwise.
TraceFormat parse_trace_format(const std::string& name);

// Loads, validates and sorts a trace. Arrivals are shifted so the first request arrives at 0.
// Format: options.format, else a `.jsonl` name is Mooncake, else the header line decides
// (`path:1: unrecognised header ...` lists the accepted ones). A forced format still checks the
// header. Throws InputError(`path:line: what`) on the first bad row.
Trace load_trace(const std::string& path, const TraceOptions& options);

// Compresses inter-arrival times by `scale` (> 0): arrival_i -> arrival_i / scale, rounded to the
// nearest ns (order is kept: the map is monotone). Throws InputError("--rate-scale: ...") for a
// scale that is not finite and > 0, or that would push arrivals past kMaxSimTime. Notes the change
// in the trace's report unless scale is 1.
void scale_arrivals(Trace& trace, double scale);

// Multiplies every request's prompt tokens by `prompt_scale` and output tokens by `output_scale`
// (each rounded to the nearest token, at least 1), for "what if our prompts are 30% longer"
// questions on a trace whose lengths are its own. Throws InputError("--prompt-length-scale: ..."
// or "--output-length-scale: ...") for a scale that is not finite and > 0, or that would take a
// request past kMaxTokensPerRequest; checked before anything changes. Notes each change in the
// trace's report unless its scale is 1.
void scale_lengths(Trace& trace, double prompt_scale, double output_scale);

}  // namespace sparksim
