// Shared summary.json pieces (see the header).
#include "experiments/run/summary_json.hpp"

namespace sparksim {

nlohmann::ordered_json to_json(const DistributionSummary& s) {
  nlohmann::ordered_json j;
  j["mean"] = s.mean;
  j["p10"] = s.p10;
  j["p50"] = s.p50;
  j["p90"] = s.p90;
  j["p99"] = s.p99;
  j["count"] = s.count;
  return j;
}

nlohmann::ordered_json load_report_json(const LoadReport& r) {
  nlohmann::ordered_json j;
  j["source"] = r.source;
  j["format"] = r.format;
  j["rows_read"] = r.rows_read;
  j["rows_kept"] = r.rows_kept;
  j["rows_sorted"] = r.rows_sorted;
  j["rows_dropped"] = r.rows_dropped;
  j["rows_clipped"] = r.rows_clipped;
  j["notes"] = r.notes;
  return j;
}

}  // namespace sparksim
