// Pieces of summary.json shared by `sparksim run` and `sparksim cluster`, so that both write the
// same keys the same way: a distribution's summary and a trace's load report.
#pragma once

#include <nlohmann/json.hpp>

#include "common/distribution_summary.hpp"
#include "traces/request_spec.hpp"

namespace sparksim {

// {"mean", "p10", "p50", "p90", "p99", "count"}.
nlohmann::ordered_json to_json(const DistributionSummary& s);
// Rows read, kept, sorted, dropped and clipped, with the loader's notes.
nlohmann::ordered_json load_report_json(const LoadReport& r);

}  // namespace sparksim
