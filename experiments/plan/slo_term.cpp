// The SLO a plan must meet: parsing `--slo "ttft_p99_ms<=2000,tok_s_per_user_p50>=80"` into
// terms (slo_term.hpp) and measuring a term on a fleet's request samples.
#include "experiments/plan/slo_term.hpp"

#include <charconv>
#include <cmath>
#include <set>
#include <string_view>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "experiments/run/problem_list.hpp"

namespace sparksim {

namespace {

bool parse_double(std::string_view s, double& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(out);
}

struct MetricName {
  const char* prefix;  // before the statistic
  const char* suffix;  // after it ("" for tok_s_per_user)
  SloTerm::Metric metric;
};
constexpr MetricName kMetrics[] = {
    {"ttft_", "_ms", SloTerm::Metric::kTtftMs},
    {"tpot_", "_ms", SloTerm::Metric::kTpotMs},
    {"e2e_", "_s", SloTerm::Metric::kE2eS},
    {"queue_", "_ms", SloTerm::Metric::kQueueMs},
    {"tok_s_per_user_", "", SloTerm::Metric::kTokSPerUser},
};
constexpr const char* kValidNames =
    "ttft_pQ_ms, tpot_pQ_ms, e2e_pQ_s, queue_pQ_ms, tok_s_per_user_pQ (Q in (0, 100), e.g. p99, "
    "p99.9), or _mean in place of _pQ";

SloTerm parse_term(const std::string& item) {
  const auto op = item.find_first_of("<>");
  if (op == std::string::npos || op + 1 >= item.size() || item[op + 1] != '=') {
    throw InputError("--slo: '" + item + "' must be NAME<=VALUE or NAME>=VALUE");
  }
  SloTerm t;
  t.name = item.substr(0, op);
  t.at_most = item[op] == '<';
  if (!parse_double(std::string_view(item).substr(op + 2), t.bound)) {
    throw InputError("--slo: '" + item + "': '" + item.substr(op + 2) + "' is not a number");
  }
  for (const auto& m : kMetrics) {
    const std::string prefix = m.prefix, suffix = m.suffix;
    if (t.name.rfind(prefix, 0) != 0 || t.name.size() < prefix.size() + suffix.size() ||
        t.name.compare(t.name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    const std::string stat =
        t.name.substr(prefix.size(), t.name.size() - prefix.size() - suffix.size());
    t.metric = m.metric;
    if (stat == "mean") {
      t.mean = true;
      return t;
    }
    if (stat.size() > 1 && stat[0] == 'p' &&
        parse_double(std::string_view(stat).substr(1), t.percentile)) {
      if (!(t.percentile > 0 && t.percentile < 100)) {
        throw InputError("--slo: '" + item + "': percentile " + format_number(t.percentile) +
                         " must be in (0, 100)");
      }
      return t;
    }
  }
  throw InputError("--slo: '" + item + "': unknown metric '" + t.name + "'; valid: " + kValidNames);
}

}  // namespace

const SloMetricFields& slo_metric_fields(SloTerm::Metric metric) {
  using M = SloTerm::Metric;
  static const SloMetricFields ttft{&RequestSamples::ttft_ms, &RequestSample::ttft_ms, false},
      tpot{&RequestSamples::tpot_ms, &RequestSample::tpot_ms, true},
      e2e{&RequestSamples::e2e_s, &RequestSample::e2e_s, false},
      queue{&RequestSamples::queue_ms, &RequestSample::queue_ms, false},
      speed{&RequestSamples::tok_s_per_user, &RequestSample::tok_s_per_user, true};
  switch (metric) {
    case M::kTtftMs:
      return ttft;
    case M::kTpotMs:
      return tpot;
    case M::kE2eS:
      return e2e;
    case M::kQueueMs:
      return queue;
    case M::kTokSPerUser:
      return speed;
  }
  return ttft;
}

double SloTerm::measure(const RequestSamples& samples) const {
  const auto& v = samples.*slo_metric_fields(metric).pooled;
  return mean ? sample_mean(v) : sample_percentile(v, percentile);
}

std::string SloTerm::text() const {
  return name + (at_most ? "<=" : ">=") + format_number(bound);
}

std::vector<SloTerm> parse_slo_spec(const std::string& text) {
  ProblemList problems;
  std::vector<SloTerm> terms;
  std::set<std::string> seen;
  if (text.empty()) {
    problems.add("--slo: empty; e.g. --slo \"ttft_p99_ms<=2000,tok_s_per_user_p50>=80\"");
  }
  std::size_t pos = 0;
  while (!text.empty() && pos <= text.size()) {
    auto comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(pos, comma - pos);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    problems.check([&] {
      SloTerm t = parse_term(item);
      if (!seen.insert(t.name + (t.at_most ? "<=" : ">=")).second) {
        throw InputError("--slo: '" + item + "' bounds " + t.name + " the same way twice");
      }
      terms.push_back(std::move(t));
    });
    pos = comma + 1;
  }
  problems.throw_if_any();
  return terms;
}

}  // namespace sparksim
