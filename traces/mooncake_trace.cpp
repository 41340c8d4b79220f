// Mooncake JSONL trace loader and timestamp-bucket spreading.
#include "traces/mooncake_trace.hpp"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/input_error.hpp"
#include "traces/field_parsing.hpp"
#include "traces/text_lines.hpp"
#include "traces/trace_ordering.hpp"

namespace sparksim {

namespace {

std::int64_t integer_field(const nlohmann::json& row, const char* key, const std::string& path,
                           std::int64_t line) {
  const auto it = row.find(key);
  if (it == row.end()) throw InputError(path, line, std::string("missing field '") + key + "'");
  if (it->is_number_unsigned()) {
    const auto value = it->get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throw InputError(path, line, std::string(key) + " is " + it->dump() + "; out of range");
    }
    return static_cast<std::int64_t>(value);
  }
  if (it->is_number_integer()) return it->get<std::int64_t>();
  throw InputError(
      path, line,
      std::string(key) + " is " + quote_for_message(it->dump()) + "; must be an integer");
}

// nlohmann's messages start with "[json.exception.parse_error.101] parse error at line 1, ";
// the file line is already in our prefix, so keep only the part after it.
std::string json_error_detail(const nlohmann::json::exception& e) {
  std::string what = e.what();
  std::size_t at = what.find("column ");
  if (at == std::string::npos) {
    at = what.find("] ");  // out_of_range: "[json.exception.out_of_range.406] number overflow ..."
    if (at != std::string::npos) at += 2;
  }
  return at == std::string::npos ? what : what.substr(at);
}

}  // namespace

void spread_timestamp_buckets(Trace& trace, SimTime bucket_width) {
  auto& requests = trace.requests;
  std::int64_t buckets = 0;
  std::int64_t moved = 0;
  for (std::size_t begin = 0; begin < requests.size();) {
    std::size_t end = begin + 1;
    while (end < requests.size() && requests[end].arrival == requests[begin].arrival) ++end;
    const auto n = static_cast<std::int64_t>(end - begin);
    if (n > 1) {
      ++buckets;
      moved += n - 1;
      for (std::int64_t i = 1; i < n; ++i) {
        requests[begin + static_cast<std::size_t>(i)].arrival += i * bucket_width / n;
      }
    }
    begin = end;
  }
  trace.report.notes.push_back(
      "bucket spreading on: the i-th of n requests sharing a timestamp moved to timestamp + i * " +
      format_seconds(bucket_width) + " / n (" + std::to_string(moved) + " requests moved, " +
      std::to_string(buckets) + " buckets)");
  const std::int64_t passed = count_out_of_order(requests);
  if (passed > 0) {
    std::stable_sort(
        requests.begin(), requests.end(),
        [](const RequestSpec& a, const RequestSpec& b) { return a.arrival < b.arrival; });
    trace.report.notes.push_back(std::to_string(passed) +
                                 " spread requests passed the next bucket's first request and "
                                 "were re-sorted");
  }
  if (!requests.empty() && requests.back().arrival > kMaxSimTime) {
    throw InputError(trace.report.source, 0,
                     "spread arrivals end at " + format_seconds(requests.back().arrival) +
                         "; at most " + format_seconds(kMaxSimTime) + " is supported");
  }
}

Trace load_mooncake_trace(const std::string& path, std::string_view text,
                          const TraceOptions& options) {
  Trace trace = start_loaded_trace(path, "mooncake", text);
  LoadReport& report = trace.report;
  const Domain domain = options.domain.value_or(Domain::kChat);

  constexpr std::int64_t kMaxTimestampMs = kMaxSimTime / 1'000'000;
  LineCursor cursor(text);
  std::string_view line;
  while (cursor.next_row(line)) {
    const std::int64_t n = cursor.line_number();
    ++report.rows_read;
    nlohmann::json row;
    try {
      row = nlohmann::json::parse(line.begin(), line.end());
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(path, n, "not valid JSON (" + json_error_detail(e) + ")");
    } catch (const nlohmann::json::out_of_range& e) {
      // Valid syntax, but a number too large for a double (found by the Mooncake fuzzer).
      throw InputError(path, n, "not valid JSON (" + json_error_detail(e) + ")");
    }
    if (!row.is_object()) {
      throw InputError(path, n, "expected a JSON object, found " + quote_for_message(row.dump()));
    }
    const std::int64_t timestamp_ms = integer_field(row, "timestamp", path, n);
    if (timestamp_ms < 0) {
      throw InputError(path, n, "timestamp is " + std::to_string(timestamp_ms) + "; must be >= 0");
    }
    if (timestamp_ms > kMaxTimestampMs) {
      throw InputError(path, n,
                       "timestamp is " + std::to_string(timestamp_ms) +
                           "; must be <= " + std::to_string(kMaxTimestampMs) + " ms");
    }
    RequestSpec request;
    request.arrival = timestamp_ms * 1'000'000;
    request.prompt_tokens = integer_field(row, "input_length", path, n);
    check_token_count(request.prompt_tokens, "input_length", 1, path, n);
    request.output_tokens = integer_field(row, "output_length", path, n);
    check_token_count(request.output_tokens, "output_length", 0, path, n);
    clip_zero_output(request, report);
    request.domain = domain;
    trace.requests.push_back(request);
  }

  LoaderNotes loader{cursor.empty_lines(), "output_length", {}};
  loader.notes.push_back("domain '" + std::string(domain_name(domain)) +
                         "' given to every request (" +
                         (options.domain ? "domain option" : "Mooncake conversation trace") + ")");
  finalize_loaded_trace(trace, loader);
  if (options.spread_buckets) {
    spread_timestamp_buckets(trace, kMooncakeBucketWidth);
  } else {
    report.notes.push_back(
        "bucket spreading off: requests sharing a ~3 s timestamp bucket arrive together");
  }
  return trace;
}

}  // namespace sparksim
