// Reading per-request samples back from requests.csv text.
#include "experiments/run/request_samples.hpp"

#include <algorithm>
#include <string>

#include "common/csv_table.hpp"
#include "common/distribution_summary.hpp"

namespace sparksim {

void RequestSamples::add_requests_csv(std::string_view text, const std::string_view path) {
  const CsvTable t = CsvTable::parse(text, std::string(path));
  const std::size_t ttft = t.column("ttft_ms"), tpot = t.column("tpot_ms"), e2e = t.column("e2e_s"),
                    queue = t.column("queue_ms"), speed = t.column("tok_s_per_user");
  for (std::size_t r = 0; r < t.rows(); ++r) {
    ttft_ms.push_back(t.number(r, ttft));
    e2e_s.push_back(t.number(r, e2e));
    queue_ms.push_back(t.number(r, queue));
    if (!t.cell(r, tpot).empty()) tpot_ms.push_back(t.number(r, tpot));
    if (!t.cell(r, speed).empty()) tok_s_per_user.push_back(t.number(r, speed));
  }
}

void RequestSamples::append(const RequestSamples& o) {
  const auto cat = [](std::vector<double>& a, const std::vector<double>& b) {
    a.insert(a.end(), b.begin(), b.end());
  };
  cat(ttft_ms, o.ttft_ms);
  cat(tpot_ms, o.tpot_ms);
  cat(e2e_s, o.e2e_s);
  cat(queue_ms, o.queue_ms);
  cat(tok_s_per_user, o.tok_s_per_user);
}

double sample_percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return sorted_percentile(values, q);
}

double sample_mean(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  long double sum = 0;
  for (double v : values) sum += v;
  return static_cast<double>(sum / static_cast<long double>(values.size()));
}

}  // namespace sparksim
