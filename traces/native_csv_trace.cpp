// sparksim native trace CSV loader.
#include "traces/native_csv_trace.hpp"

#include <algorithm>
#include <vector>

#include "common/input_error.hpp"
#include "traces/field_parsing.hpp"
#include "traces/text_lines.hpp"
#include "traces/trace_ordering.hpp"

namespace sparksim {

bool is_native_csv_header(std::string_view first_line) {
  return first_line == kNativeCsvHeader || first_line == kNativeCsvHeaderNoDomain;
}

Trace load_native_csv_trace(const std::string& path, std::string_view text,
                            const TraceOptions& options) {
  Trace trace = start_loaded_trace(path, "csv", text);
  LoadReport& report = trace.report;

  LineCursor cursor(text);
  std::string_view line =
      read_header(cursor, path, is_native_csv_header,
                  "a sparksim CSV header; expected '" + std::string(kNativeCsvHeader) +
                      "' (domain column optional)");
  const bool has_domain_column = line == kNativeCsvHeader;
  const std::string_view header = has_domain_column ? kNativeCsvHeader : kNativeCsvHeaderNoDomain;
  const std::size_t column_count = has_domain_column ? 4 : 3;
  const Domain fallback_domain = options.domain.value_or(Domain::kChat);

  std::vector<std::string_view> fields;
  while (cursor.next_row(line)) {
    const std::int64_t n = cursor.line_number();
    ++report.rows_read;
    split_fields(line, ',', fields);
    if (fields.size() != column_count) {
      throw InputError(path, n,
                       "expected " + std::to_string(column_count) + " fields (" +
                           std::string(header) + "), found " + std::to_string(fields.size()));
    }
    RequestSpec request;
    request.arrival = parse_arrival_seconds(fields[0], "arrival_s", path, n);
    request.prompt_tokens = parse_token_count(fields[1], "prompt_tokens", 1, path, n);
    request.output_tokens = parse_token_count(fields[2], "output_tokens", 1, path, n);
    request.domain = fallback_domain;
    if (has_domain_column && !parse_domain(fields[3], request.domain)) {
      throw InputError(
          path, n,
          "domain is " + quote_for_message(fields[3]) + "; must be one of " + valid_domain_list());
    }
    if (has_domain_column && options.domain) request.domain = *options.domain;
    trace.requests.push_back(request);
  }

  LoaderNotes loader{cursor.empty_lines(), "", {}};
  if (options.domain && has_domain_column) {
    loader.notes.push_back("domain column replaced by '" +
                           std::string(domain_name(*options.domain)) +
                           "' for every request (domain option)");
  } else if (!has_domain_column) {
    loader.notes.push_back(
        "no domain column: domain '" + std::string(domain_name(fallback_domain)) +
        "' given to every request (" + (options.domain ? "domain option" : "default") + ")");
  }
  finalize_loaded_trace(trace, loader);
  return trace;
}

}  // namespace sparksim
