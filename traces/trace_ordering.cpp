// Arrival ordering and rebasing shared by the trace loaders.
#include "traces/trace_ordering.hpp"

#include <algorithm>
#include <cstdlib>

#include "common/input_error.hpp"

namespace sparksim {

std::int64_t count_out_of_order(const std::vector<RequestSpec>& requests) {
  std::int64_t count = 0;
  for (std::size_t i = 1; i < requests.size(); ++i) {
    if (requests[i].arrival < requests[i - 1].arrival) ++count;
  }
  return count;
}

std::string format_seconds(SimTime t) {
  // Integer arithmetic, so the printed value is the stored one, not a double's rounding of it.
  const bool negative = t < 0;
  const std::uint64_t magnitude =
      negative ? std::uint64_t{0} - static_cast<std::uint64_t>(t) : static_cast<std::uint64_t>(t);
  std::string fraction = std::to_string(magnitude % kNanosPerSecond);
  fraction.insert(0, 9 - fraction.size(), '0');
  std::string text = negative ? "-" : "";
  text.append(std::to_string(magnitude / kNanosPerSecond)).append(".").append(fraction);
  return text.append(" s");
}

void clip_zero_output(RequestSpec& request, LoadReport& report) {
  if (request.output_tokens == 0) {
    request.output_tokens = 1;
    ++report.rows_clipped;
  }
}

Trace start_loaded_trace(const std::string& path, const std::string& format,
                         std::string_view text) {
  Trace trace;
  trace.report.source = path;
  trace.report.format = format;
  trace.requests.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  return trace;
}

void finalize_loaded_trace(Trace& trace, const LoaderNotes& loader) {
  auto& requests = trace.requests;
  LoadReport& report = trace.report;
  if (report.rows_clipped > 0) {
    report.notes.push_back(std::to_string(report.rows_clipped) + " rows had " +
                           loader.output_column +
                           " 0; clipped to 1 (a request must produce a token to be simulated)");
  }
  if (loader.empty_lines > 0) {
    report.notes.push_back(std::to_string(loader.empty_lines) + " empty lines ignored");
  }
  report.notes.insert(report.notes.end(), loader.notes.begin(), loader.notes.end());
  if (requests.empty()) throw InputError(report.source, 0, "no requests after the header");

  report.rows_sorted = count_out_of_order(requests);
  if (report.rows_sorted > 0) {
    std::stable_sort(
        requests.begin(), requests.end(),
        [](const RequestSpec& a, const RequestSpec& b) { return a.arrival < b.arrival; });
    report.notes.push_back(std::to_string(report.rows_sorted) +
                           " rows arrived earlier than the row before them; stable-sorted by "
                           "arrival (equal arrivals keep file order)");
  }

  const SimTime first = requests.front().arrival;
  const SimTime last = requests.back().arrival;
  // Loaders bound every arrival by +-kMaxSimTime, so this difference cannot overflow.
  if (last - first > kMaxSimTime) {
    throw InputError(report.source, 0,
                     "arrivals span " + format_seconds(last - first) + "; at most " +
                         format_seconds(kMaxSimTime) + " is supported");
  }
  if (first != 0) {
    for (RequestSpec& r : requests) r.arrival -= first;
    report.notes.push_back("arrivals shifted by " + format_seconds(-first) +
                           " so the first request arrives at 0");
  }
  report.rows_kept = static_cast<std::int64_t>(requests.size());
}

}  // namespace sparksim
