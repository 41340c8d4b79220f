// Per-request samples, read back from requests.csv text or taken from completed requests.
#include "experiments/run/request_samples.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "common/csv_row.hpp"
#include "common/csv_table.hpp"
#include "common/distribution_summary.hpp"

namespace sparksim {

namespace {

// Nanoseconds / 10^digits as requests.csv's `scaled` cell reads back: that cell is the exact
// decimal, which reads back as the double nearest to it, and so is one correctly rounded division
// of two doubles that hold their integers exactly (|ns| < 2^53, about 104 simulated days).
double scaled_value(SimTime ns, double unit) {
  return static_cast<double>(ns) / unit;
}

// requests.csv's `ratio` cell (MetricsCollector::on_request_done), printed and read back: the
// rounding is CsvRow's own, so the value cannot drift from the file's.
double ratio_value(std::int64_t numerator, std::int64_t denominator, int digits) {
  std::string cell;
  CsvRow(cell).ratio(numerator, denominator, digits);
  double value = 0;
  std::from_chars(cell.data(), cell.data() + cell.size(), value);
  return value;
}

}  // namespace

RequestSample request_sample(const Request& r) {
  RequestSample s;
  s.ttft_ms = scaled_value(r.first_token - r.arrival, 1e6);
  s.e2e_s = scaled_value(r.done - r.arrival, 1e9);
  s.queue_ms = scaled_value(r.first_admitted - r.arrival, 1e6);
  s.has_tpot = r.spec.output_tokens > 1;
  if (s.has_tpot) {
    const SimTime decode_span = r.done - r.first_token;
    s.tpot_ms = ratio_value(decode_span, (r.spec.output_tokens - 1) * 1'000'000, 6);
    s.tok_s_per_user =
        ratio_value(decode_span > 0 ? (r.spec.output_tokens - 1) * kNanosPerSecond : 0,
                    std::max<SimTime>(decode_span, 1), 6);
  }
  return s;
}

void RequestSamples::add(const RequestSample& s) {
  ttft_ms.push_back(s.ttft_ms);
  e2e_s.push_back(s.e2e_s);
  queue_ms.push_back(s.queue_ms);
  if (s.has_tpot) {
    tpot_ms.push_back(s.tpot_ms);
    tok_s_per_user.push_back(s.tok_s_per_user);
  }
}

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
