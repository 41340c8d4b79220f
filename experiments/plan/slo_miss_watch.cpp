// When a fleet's SLO is lost for good: the counts and sums of slo_miss_watch.hpp.
#include "experiments/plan/slo_miss_watch.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/json_file.hpp"

namespace sparksim {

namespace {

constexpr double kMargin = 1e-9;  // of the bound, for the "≥" and mean tests (see the header)

// The violating values a percentile term needs for certainty among `m` final values; more than
// m (never) when the sample is empty, whose statistic is 0 by convention.
std::int64_t needed_for_percentile(const SloTerm& t, std::int64_t m) {
  if (m <= 0) return std::numeric_limits<std::int64_t>::max();
  // The rank exactly as sorted_percentile computes it.
  const double rank = t.percentile / 100.0 * static_cast<double>(m - 1);
  const auto lo = static_cast<std::int64_t>(std::floor(rank));
  // On a whole rank the percentile is the value at lo alone.
  const std::int64_t hi = rank == static_cast<double>(lo) ? lo : std::min(lo + 1, m - 1);
  return t.at_most ? m - lo : hi + 1;
}

}  // namespace

SloMissWatch::SloMissWatch(std::span<const SloTerm> terms, std::int64_t requests,
                           std::int64_t multi_token_requests) {
  for (const SloTerm& t : terms) {
    Watched w{&t};
    w.sample_size = slo_metric_fields(t.metric).multi_token_only ? multi_token_requests : requests;
    w.needed = t.mean ? 0 : needed_for_percentile(t, w.sample_size);
    watched_.push_back(w);
  }
}

void SloMissWatch::update(Watched& w, double value) {
  const SloTerm& t = *w.term;
  if (t.mean) {
    if (!t.at_most) return;  // never certain early
    w.sum += value;
    // The final mean is at least sum / M: every metric is >= 0.
    const long double limit = static_cast<long double>(w.sample_size) *
                              (static_cast<long double>(t.bound) + kMargin * std::fabs(t.bound));
    w.lost = w.sample_size > 0 && w.sum > limit;
    return;
  }
  const bool violates =
      t.at_most ? value > t.bound : value < t.bound - kMargin * std::fabs(t.bound);
  if (violates && ++w.violating >= w.needed) w.lost = true;
}

bool SloMissWatch::add(const RequestSample& sample) {
  for (Watched& w : watched_) {
    const SloMetricFields& fields = slo_metric_fields(w.term->metric);
    if (fields.multi_token_only && !sample.has_tpot) continue;
    update(w, sample.*fields.one);
    certain_ = certain_ || w.lost;
  }
  return certain_;
}

std::string SloMissWatch::reason() const {
  std::string text;
  for (const Watched& w : watched_) {
    if (!w.lost) continue;
    const SloTerm& t = *w.term;
    const std::string bound = format_number(t.bound);
    text +=
        (text.empty() ? "" : "; ") + t.name + (t.at_most ? " > " : " < ") + bound + " certain: ";
    if (t.mean) {
      text += "the requests done alone give a mean of " +
              format_number(static_cast<double>(w.sum / static_cast<long double>(w.sample_size)));
    } else {
      text += std::to_string(w.violating) + " of " + std::to_string(w.sample_size) +
              (t.at_most ? " over " : " under ") + bound + " (at most " +
              std::to_string(w.needed - 1) + " may be)";
    }
  }
  return text;
}

}  // namespace sparksim
