// RequestSpec and Trace: what a workload asks of the server, before any simulation.
// A Trace is the loaded, validated, arrival-sorted list plus the LoadReport saying what the loader
// changed on the way (sorted, dropped, clipped rows are counted, never silent).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/sim_time.hpp"
#include "traces/domain.hpp"

namespace sparksim {

// Largest prompt or output length any loader or sampler accepts. No served model comes near it;
// a bigger value is a corrupt row or a unit mistake, and would overflow token-time products.
inline constexpr std::int64_t kMaxTokensPerRequest = 100'000'000;

struct RequestSpec {
  SimTime arrival = 0;             // ns since the trace's first arrival
  std::int64_t prompt_tokens = 0;  // >= 1
  std::int64_t output_tokens = 0;  // >= 1
  Domain domain = Domain::kChat;

  bool operator==(const RequestSpec&) const = default;
};

// What a loader did to the data. Every row read is either kept or counted in `dropped`.
struct LoadReport {
  std::string source;          // path, or the synthetic spec string
  std::string format;          // azure | mooncake | csv | synthetic | closed-loop
  std::int64_t rows_read = 0;  // data rows seen (header excluded)
  std::int64_t rows_kept = 0;
  std::int64_t rows_sorted = 0;  // rows whose arrival was earlier than the row before (re-sorted)
  std::int64_t rows_dropped = 0;
  std::int64_t rows_clipped = 0;   // rows whose values were changed to fit a limit
  std::vector<std::string> notes;  // one line per kind of change, with counts and the reason
};

struct Trace {
  std::vector<RequestSpec> requests;  // sorted by arrival (stable: ties keep file order)
  LoadReport report;
};

}  // namespace sparksim
