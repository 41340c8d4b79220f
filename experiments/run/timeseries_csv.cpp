// timeseries.csv from the metrics' per-second bins.
#include "experiments/run/timeseries_csv.hpp"

#include <cstdint>

#include "common/csv_row.hpp"

namespace sparksim {

namespace {

double per(double num, double den) {
  return den > 0 ? num / den : 0.0;
}

}  // namespace

std::string timeseries_csv(const std::vector<PerSecondBin>& bins) {
  std::string ts =
      "time_s,running_requests_mean,steps,request_steps,verify_tokens_per_request_step,"
      "tau,output_tokens,throughput_tok_s,requests_completed\n";
  for (std::size_t i = 0; i < bins.size(); ++i) {
    const PerSecondBin& b = bins[i];
    CsvRow(ts)
        .integer(static_cast<std::int64_t>(i))
        .fixed(b.running_request_seconds, 6)
        .integer(b.steps)
        .integer(b.request_steps)
        .fixed(per(static_cast<double>(b.verify_tokens), static_cast<double>(b.request_steps)), 6)
        .fixed(per(static_cast<double>(b.decode_committed), static_cast<double>(b.request_steps)),
               6)
        .integer(b.output_tokens)
        .integer(b.output_tokens)
        .integer(b.completed)
        .end();
  }
  return ts;
}

}  // namespace sparksim
