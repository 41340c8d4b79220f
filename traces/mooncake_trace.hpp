// Mooncake (FAST'25) JSONL trace loader: one `{"timestamp": ms, "input_length", "output_length",
// "hash_ids"}` object per line. Its timestamps are quantised to ~3 s buckets, so a replay either
// keeps each bucket as a simultaneous burst or spreads it over the bucket (TraceOptions).
#pragma once

#include <string>
#include <string_view>

#include "traces/trace_loader.hpp"

namespace sparksim {

// Width the Mooncake release quantised timestamps to (consecutive values are 2997-3003 ms apart).
inline constexpr SimTime kMooncakeBucketWidth = SimTime{3000} * 1'000'000;

// Parses `text` (the bytes of `path`). Domain: options.domain, else chat (a conversation trace).
// output_length 0 is clipped to 1 and counted in rows_clipped; negatives are errors. hash_ids is
// not read (no prefix-cache model uses it yet). With options.spread_buckets, the i-th (file order)
// of the n requests sharing a timestamp t arrives at t + i * kMooncakeBucketWidth / n.
Trace load_mooncake_trace(const std::string& path, std::string_view text,
                          const TraceOptions& options);

// The spreading step on its own, for an arrival-sorted trace: exact integer ns, deterministic.
// Re-sorts (and notes it) if a crowded bucket is pushed past the next bucket's start.
void spread_timestamp_buckets(Trace& trace, SimTime bucket_width);

}  // namespace sparksim
