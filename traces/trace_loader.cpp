// Trace-format registry, format detection and dispatch, and arrival-rate scaling.
#include "traces/trace_loader.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <sstream>
#include <utility>

#include "common/input_error.hpp"
#include "traces/azure_trace.hpp"
#include "traces/mooncake_trace.hpp"
#include "traces/native_csv_trace.hpp"
#include "traces/text_lines.hpp"
#include "traces/trace_ordering.hpp"

namespace sparksim {

namespace {

// Explicit table, no static registration: adding a format is one row here.
constexpr std::array<TraceFormatInfo, 3> kTraceFormats = {{
    {TraceFormat::kAzure, "azure",
     "Azure LLM inference trace CSV (AzurePublicDataset 2023): wall-clock TIMESTAMP, "
     "ContextTokens, GeneratedTokens",
     "header 'TIMESTAMP,ContextTokens,GeneratedTokens'", "", &is_azure_header, &load_azure_trace,
     "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
     "2023-11-16 18:17:03.9799600,4808,10\r\n"
     "2023-11-16 18:17:04.0319600,3180,8"},
    {TraceFormat::kMooncake, "mooncake",
     "Mooncake FAST'25 JSONL: timestamp (ms), input_length, output_length, hash_ids per line",
     "a file name ending in .jsonl", ".jsonl", nullptr, &load_mooncake_trace,
     "{\"timestamp\": 0, \"input_length\": 6758, \"output_length\": 500, \"hash_ids\": [0, 1]}\n"
     "{\"timestamp\": 3000, \"input_length\": 7322, \"output_length\": 490, \"hash_ids\": [0]}\n"},
    {TraceFormat::kNativeCsv, "csv", "sparksim CSV: arrival_s,prompt_tokens,output_tokens[,domain]",
     "header 'arrival_s,prompt_tokens,output_tokens,domain' (domain column optional)", "",
     &is_native_csv_header, &load_native_csv_trace,
     "arrival_s,prompt_tokens,output_tokens,domain\n0.0,100,20,math\n0.5,200,40,code\n"},
}};

std::string valid_format_names() {
  std::string names;
  for (const TraceFormatInfo& info : kTraceFormats) {
    if (!names.empty()) names += ", ";
    names += info.name;
  }
  return names;
}

bool has_extension(const std::string& path, std::string_view extension) {
  if (extension.empty() || path.size() < extension.size()) return false;
  return std::equal(extension.begin(), extension.end(), path.end() - extension.size(),
                    [](char a, char b) {
                      return std::tolower(static_cast<unsigned char>(a)) ==
                             std::tolower(static_cast<unsigned char>(b));
                    });
}

const TraceFormatInfo& detect_trace_format(const std::string& path, std::string_view text) {
  for (const TraceFormatInfo& info : kTraceFormats) {
    if (has_extension(path, info.extension)) return info;
  }
  LineCursor cursor(text);
  std::string_view first_line;
  cursor.next(first_line);
  for (const TraceFormatInfo& info : kTraceFormats) {
    if (info.matches_header != nullptr && info.matches_header(first_line)) return info;
  }
  std::string expected;
  for (std::size_t i = 0; i < kTraceFormats.size(); ++i) {
    if (i > 0) expected += i + 1 == kTraceFormats.size() ? "; or " : "; ";
    expected += std::string(kTraceFormats[i].recognised_by) + " (" +
                std::string(kTraceFormats[i].name) + ")";
  }
  throw InputError(
      path, 1,
      "unrecognised header " + quote_for_message(first_line) + "; expected one of " + expected);
}

}  // namespace

std::span<const TraceFormatInfo> trace_formats() {
  return kTraceFormats;
}

const TraceFormatInfo& trace_format_info(TraceFormat format) {
  for (const TraceFormatInfo& info : kTraceFormats) {
    if (info.format == format) return info;
  }
  throw std::logic_error("trace format missing from the registry");
}

TraceFormat parse_trace_format(const std::string& name) {
  for (const TraceFormatInfo& info : kTraceFormats) {
    if (info.name == name) return info.format;
  }
  throw InputError("--trace-format: unknown format '" + name + "'; valid: " + valid_format_names());
}

Trace load_trace(const std::string& path, const TraceOptions& options) {
  const std::string text = read_text_file(path);
  const TraceFormatInfo& info =
      options.format ? trace_format_info(*options.format) : detect_trace_format(path, text);
  return info.load(path, text, options);
}

void scale_arrivals(Trace& trace, double scale) {
  if (!std::isfinite(scale) || scale <= 0) {
    std::ostringstream value;
    value << scale;
    throw InputError("--rate-scale: scale is " + value.str() + "; must be a finite number > 0");
  }
  if (scale == 1.0) return;
  std::ostringstream value;
  value << scale;
  // long double: its 64-bit mantissa holds every arrival up to kMaxSimTime exactly (double's 53
  // bits would round arrivals past ~104 days before the division).
  SimTime last = 0;
  for (const RequestSpec& r : trace.requests) last = std::max(last, r.arrival);
  if (static_cast<long double>(last) / scale > static_cast<long double>(kMaxSimTime)) {
    // Checked before changing anything, so a failure leaves the trace as it was.
    throw InputError("--rate-scale: scale " + value.str() + " would put the last arrival past " +
                     format_seconds(kMaxSimTime) + ", the simulator's time limit");
  }
  for (RequestSpec& r : trace.requests) {
    r.arrival = static_cast<SimTime>(std::llround(static_cast<long double>(r.arrival) / scale));
  }
  trace.report.notes.push_back("arrivals divided by " + value.str() +
                               " (rate scale): the mean request rate is " + value.str() +
                               "x the source's");
}

namespace {

// Each length x scale, rounded, at least 1; the option's name in every message.
std::int64_t scaled_length(std::int64_t tokens, double scale) {
  return std::max<std::int64_t>(1, std::llround(static_cast<double>(tokens) * scale));
}

void check_length_scale(const Trace& trace, double scale, bool prompt) {
  const std::string option = prompt ? "--prompt-length-scale" : "--output-length-scale";
  std::ostringstream value;
  value << scale;
  if (!std::isfinite(scale) || scale <= 0) {
    throw InputError(option + ": scale is " + value.str() + "; must be a finite number > 0");
  }
  std::int64_t longest = 0;
  for (const RequestSpec& r : trace.requests) {
    longest = std::max(longest, prompt ? r.prompt_tokens : r.output_tokens);
  }
  if (static_cast<double>(longest) * scale > static_cast<double>(kMaxTokensPerRequest)) {
    throw InputError(option + ": scale " + value.str() + " would take a request of " +
                     std::to_string(longest) + " tokens past " +
                     std::to_string(kMaxTokensPerRequest) + " tokens");
  }
}

}  // namespace

void scale_lengths(Trace& trace, double prompt_scale, double output_scale) {
  check_length_scale(trace, prompt_scale, true);
  check_length_scale(trace, output_scale, false);
  for (RequestSpec& r : trace.requests) {
    r.prompt_tokens = scaled_length(r.prompt_tokens, prompt_scale);
    r.output_tokens = scaled_length(r.output_tokens, output_scale);
  }
  for (const auto& [scale, what] : {std::pair{prompt_scale, "prompt"}, {output_scale, "output"}}) {
    if (scale == 1.0) continue;
    std::ostringstream value;
    value << scale;
    trace.report.notes.push_back(std::string("every request's ") + what + " tokens x " +
                                 value.str() + " (length scale), rounded, at least 1");
  }
}

}  // namespace sparksim
