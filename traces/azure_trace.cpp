// Azure LLM inference trace CSV loader.
#include "traces/azure_trace.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "common/input_error.hpp"
#include "traces/civil_time.hpp"
#include "traces/field_parsing.hpp"
#include "traces/text_lines.hpp"
#include "traces/trace_ordering.hpp"

namespace sparksim {

namespace {

// The 2023 release has no per-row label; which file a row came from is the label.
Domain default_azure_domain(const std::string& path, std::string& why) {
  std::string name = std::filesystem::path(path).filename().string();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name.find("code") != std::string::npos) {
    why = "Azure file name contains \"code\"";
    return Domain::kCode;
  }
  why = "Azure file name does not contain \"code\": conversation service";
  return Domain::kChat;
}

}  // namespace

bool is_azure_header(std::string_view first_line) {
  return first_line == kAzureHeader;
}

Trace load_azure_trace(const std::string& path, std::string_view text,
                       const TraceOptions& options) {
  Trace trace = start_loaded_trace(path, "azure", text);
  LoadReport& report = trace.report;

  std::string domain_why = "domain option";
  const Domain domain = options.domain ? *options.domain : default_azure_domain(path, domain_why);

  LineCursor cursor(text);
  std::string_view line =
      read_header(cursor, path, is_azure_header,
                  "an Azure trace header; expected '" + std::string(kAzureHeader) + "'");

  std::vector<std::string_view> fields;
  CivilTime first_time;
  std::string first_timestamp;
  // Bound on |row time - first row time| so the ns product and later differences cannot overflow.
  constexpr std::int64_t kMaxOffsetSeconds = kMaxSimTime / kNanosPerSecond;
  while (cursor.next_row(line)) {
    const std::int64_t n = cursor.line_number();
    ++report.rows_read;
    split_fields(line, ',', fields);
    if (fields.size() != 3) {
      throw InputError(path, n,
                       "expected 3 fields (" + std::string(kAzureHeader) + "), found " +
                           std::to_string(fields.size()));
    }
    CivilTime time;
    const std::string why = parse_civil_time(fields[0], time);
    if (!why.empty()) {
      throw InputError(path, n, "TIMESTAMP is " + quote_for_message(fields[0]) + "; " + why);
    }
    if (report.rows_read == 1) {
      first_time = time;
      first_timestamp = std::string(fields[0]);
    }
    const std::int64_t offset_s = time.seconds - first_time.seconds;
    if (offset_s > kMaxOffsetSeconds || offset_s < -kMaxOffsetSeconds) {
      throw InputError(path, n,
                       "TIMESTAMP " + std::string(fields[0]) + " is more than " +
                           std::to_string(kMaxOffsetSeconds) + " s from the first row's " +
                           first_timestamp);
    }
    RequestSpec request;
    request.arrival = offset_s * kNanosPerSecond + (time.nanos - first_time.nanos);
    request.prompt_tokens = parse_token_count(fields[1], "ContextTokens", 1, path, n);
    request.output_tokens = parse_token_count(fields[2], "GeneratedTokens", 0, path, n);
    clip_zero_output(request, report);
    request.domain = domain;
    trace.requests.push_back(request);
  }

  LoaderNotes loader{cursor.empty_lines(), "GeneratedTokens", {}};
  if (!trace.requests.empty()) {
    loader.notes.push_back("arrivals measured from the first row's TIMESTAMP " + first_timestamp +
                           " (naive wall clock, no time zone)");
  }
  loader.notes.push_back("domain '" + std::string(domain_name(domain)) +
                         "' given to every request (" + domain_why + ")");
  finalize_loaded_trace(trace, loader);
  return trace;
}

}  // namespace sparksim
