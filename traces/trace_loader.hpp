// Trace file loaders: Azure LLM inference CSV, Mooncake JSONL, and sparksim's native CSV.
// Every loader validates every row and throws InputError(`path:line: what`) on the first bad one;
// out-of-order arrivals are stable-sorted and counted in the LoadReport.
#pragma once

#include <optional>
#include <string>

#include "traces/request_spec.hpp"

namespace sparksim {

enum class TraceFormat { kAzure, kMooncake, kNativeCsv };

struct TraceOptions {
  std::optional<TraceFormat> format;  // unset: detect from header / .jsonl extension
  std::optional<Domain> domain;       // unset: the format's default (Azure code file -> code, ...)
  bool spread_buckets = false;        // Mooncake: spread each 3 s timestamp bucket uniformly
};

// Parses "azure" | "mooncake" | "csv"; throws InputError listing the valid names otherwise.
TraceFormat parse_trace_format(const std::string& name);

// Loads, validates and sorts a trace. Arrivals are shifted so the first request arrives at 0.
Trace load_trace(const std::string& path, const TraceOptions& options);

// Compresses inter-arrival times by `scale` (> 0): arrival_i -> arrival_i / scale.
void scale_arrivals(Trace& trace, double scale);

}  // namespace sparksim
