// The first and last steps every file loader shares: an empty trace naming its source and format;
// at the end, note what the loader skipped or clipped, put requests in arrival order and start
// the clock at the first arrival, counting and noting what moved, so no loader changes data
// silently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "traces/request_spec.hpp"

namespace sparksim {

// Rows whose arrival is earlier than the row just before them, in the vector's current order.
std::int64_t count_out_of_order(const std::vector<RequestSpec>& requests);

// What a loader tells the finishing step besides its rows.
struct LoaderNotes {
  std::int64_t empty_lines = 0;  // skipped, noted
  // The file's output-length column, named in the note on the report's rows_clipped (rows whose
  // output length 0 was clipped to 1); empty for a format that cannot have 0.
  std::string output_column;
  std::vector<std::string> notes;  // the loader's own notes, recorded after those two
};

// An empty trace whose report names `path` and `format`, with room for one request per line of
// `text`.
Trace start_loaded_trace(const std::string& path, const std::string& format, std::string_view text);

// A row with output length 0 becomes 1 (a request must produce a token to be simulated), counted
// in the report's rows_clipped for finalize_loaded_trace's note.
void clip_zero_output(RequestSpec& request, LoadReport& report);

// Records the loader's notes (clipped rows, empty lines, then its own), then stable-sorts by
// arrival (ties keep file order) and records rows_sorted with a note; shifts
// arrivals so the earliest is 0 (noting any non-zero shift); sets rows_kept. Throws
// InputError(`source: ...`) when the arrivals span more than kMaxSimTime or the trace is empty.
void finalize_loaded_trace(Trace& trace, const LoaderNotes& loader = {});

// "12.000000500 s": exact decimal seconds of a SimTime, for notes and messages.
std::string format_seconds(SimTime t);

}  // namespace sparksim
