// TimeModel and SpsTable evaluation. verify_time() runs once per simulated step (millions of
// times per run): it does one binary search over the graph buckets and one over the dense table,
// with segment slopes precomputed, and never allocates. SpsTable is a flat array lookup.
#include "profiles/time_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace sparksim {

namespace {

// Profiles bound every coefficient, but a product with a huge batch or context could still leave
// int64 nanoseconds; converting such a double is undefined behaviour, so it is refused here.
SimTime round_ns(double ns) {
  if (!(ns >= 0 && ns <= static_cast<double>(kMaxStepTime))) {
    throw std::overflow_error("time model: a step of " + std::to_string(ns * 1e-9) +
                              " s is past the simulator's limit of " +
                              std::to_string(kMaxStepTime / kNanosPerSecond) +
                              " s per step (check the profile's units)");
  }
  return std::llround(ns);
}

}  // namespace

TimeModel::TimeModel(const Profile& profile)
    : verify_(profile.verify),
      draft_(profile.draft),
      host_overhead_(round_ns(profile.host_overhead_us * 1e3)) {
  // The loader guarantees these; a profile built in memory must too (a programming error).
  const auto& x = verify_.dense_tokens;
  if (x.size() < 2 || x.size() != verify_.dense_us.size()) {
    throw std::invalid_argument("TimeModel: the dense table needs >= 2 points of equal length");
  }
  dense_slope_us_.resize(x.size() - 1);
  for (std::size_t i = 0; i + 1 < x.size(); ++i) {
    if (x[i + 1] <= x[i]) throw std::invalid_argument("TimeModel: dense_tokens not ascending");
    dense_slope_us_[i] =
        (verify_.dense_us[i + 1] - verify_.dense_us[i]) / static_cast<double>(x[i + 1] - x[i]);
  }
  padded_dense_us_.resize(static_cast<std::size_t>(kPaddedDenseTokens));
  for (std::int64_t t = 0; t < kPaddedDenseTokens; ++t) {
    padded_dense_us_[static_cast<std::size_t>(t)] = dense_us(pad(t));
  }
}

std::int64_t TimeModel::pad(std::int64_t tokens) const {
  const auto& b = verify_.graph_buckets;
  if (b.empty() || tokens > b.back()) return tokens;  // eager execution: no padding
  return *std::lower_bound(b.begin(), b.end(), tokens);
}

double TimeModel::dense_us(std::int64_t tokens) const {
  const auto& x = verify_.dense_tokens;
  const auto& y = verify_.dense_us;
  // Below the first point: its value (a forward never costs less than the smallest one profiled).
  if (tokens <= x.front()) return y.front();
  const std::size_t i =
      static_cast<std::size_t>(std::upper_bound(x.begin(), x.end(), tokens) - x.begin()) - 1;
  if (x[i] == tokens) return y[i];
  // Past the last point, the last segment's slope continues (dense cost grows linearly).
  const std::size_t seg = std::min(i, dense_slope_us_.size() - 1);
  return y[i] + dense_slope_us_[seg] * static_cast<double>(tokens - x[i]);
}

SimTime TimeModel::verify_time(const BatchShape& shape) const {
  const std::int64_t tokens = shape.verify_tokens + shape.prefill_tokens;
  if (tokens <= 0) return 0;
  const double ns =
      (verify_.fixed_us + (tokens < kPaddedDenseTokens
                               ? padded_dense_us_[static_cast<std::size_t>(tokens)]
                               : dense_us(pad(tokens)))) *
          1e3 +
      verify_.kv_read_ns_per_context_token * static_cast<double>(shape.decode_context_tokens) +
      verify_.attention_ns_per_pair *
          static_cast<double>(shape.verify_attention_pairs + shape.prefill_attention_pairs);
  return round_ns(ns);
}

SimTime TimeModel::draft_time(const DrafterSpec& drafter, std::int64_t requests) const {
  return draft_time(drafter, requests, 0);
}

SimTime TimeModel::draft_time(const DrafterSpec& drafter, std::int64_t requests,
                              std::int64_t context_tokens) const {
  if (requests <= 0) return 0;
  const DraftTimeModel& m = draft_[static_cast<int>(drafter.family)];
  const double gamma = static_cast<double>(drafter.gamma);
  const double passes = m.sequential_in_gamma ? gamma : 1.0;
  const double tokens = static_cast<double>(requests) * (m.tokens_scale_with_gamma ? gamma : 1.0);
  const double kv_passes = m.kv_read_per_pass ? gamma : 1.0;
  const double ns =
      (m.fixed_us + passes * m.per_pass_us) * 1e3 + m.per_token_ns * tokens +
      m.kv_read_ns_per_context_token * static_cast<double>(context_tokens) * kv_passes;
  return round_ns(ns);
}

SpsTable::SpsTable(const SpsPoints& points, std::int64_t max_tokens) {
  const auto& x = points.tokens;
  const auto& y = points.steps_per_s;
  if (x.empty() || x.size() != y.size() || x.front() != 1 || max_tokens < 1) {
    throw std::invalid_argument(
        "SpsTable: points must start at B = 1, have equal lengths, and max_tokens >= 1");
  }
  sps_.resize(static_cast<std::size_t>(max_tokens));
  std::size_t seg = 0;  // x[seg] <= B < x[seg + 1] while B is inside the table
  for (std::int64_t b = 1; b <= max_tokens; ++b) {
    while (seg + 1 < x.size() && x[seg + 1] <= b) ++seg;
    double v;
    if (seg + 1 < x.size()) {
      if (x[seg + 1] <= x[seg]) throw std::invalid_argument("SpsTable: tokens not ascending");
      const double f = static_cast<double>(b - x[seg]) / static_cast<double>(x[seg + 1] - x[seg]);
      v = y[seg] + f * (y[seg + 1] - y[seg]);
    } else {
      v = y.back() * static_cast<double>(x.back()) / static_cast<double>(b);
    }
    sps_[static_cast<std::size_t>(b - 1)] = v;
  }
  tail_tokens_per_s_ = sps_.back() * static_cast<double>(max_tokens);
  compute_step_ratios();
}

SpsTable::SpsTable(std::vector<double> sps_by_tokens) : sps_(std::move(sps_by_tokens)) {
  if (sps_.empty()) throw std::invalid_argument("SpsTable: needs at least one value");
  tail_tokens_per_s_ = sps_.back() * static_cast<double>(sps_.size());
  compute_step_ratios();
}

void SpsTable::compute_step_ratios() {
  const auto n = static_cast<std::size_t>(max_tokens());
  ratio_max_.assign(1, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = static_cast<std::int64_t>(i) + 1;
    const double r = steps_per_s(b) / steps_per_s(b + 1);
    // A zero or NaN SPS gives no usable bound: +inf makes every bound built on it say "unknown".
    ratio_max_[0][i] = std::isnan(r) ? std::numeric_limits<double>::infinity() : r;
  }
  for (int k = 1; k < kRatioLevels && (std::size_t{1} << k) <= n; ++k) {
    const std::vector<double>& below = ratio_max_.back();
    const std::size_t half = std::size_t{1} << (k - 1);
    std::vector<double> level(n - 2 * half + 1);
    for (std::size_t i = 0; i < level.size(); ++i) level[i] = std::max(below[i], below[i + half]);
    ratio_max_.push_back(std::move(level));
  }
}

double SpsTable::max_step_ratio(std::int64_t lo, std::int64_t hi) const {
  const std::int64_t n = max_tokens();
  double best = 0;
  if (lo <= n) {
    // Two overlapping windows of the largest level that fits cover [lo, min(hi, n)] exactly;
    // wider ranges step through the top level.
    const auto first = static_cast<std::size_t>(lo - 1);
    const auto last = static_cast<std::size_t>(std::min(hi, n) - 1);
    const std::size_t width = last - first + 1;
    const int level = std::min(static_cast<int>(ratio_max_.size()) - 1,
                               static_cast<int>(std::bit_width(width)) - 1);
    const std::vector<double>& m = ratio_max_[static_cast<std::size_t>(level)];
    const std::size_t span = std::size_t{1} << level;
    for (std::size_t i = first; i + span <= last + 1; i += span) best = std::max(best, m[i]);
    best = std::max(best, m[last + 1 - span]);
  }
  // Past the table SPS(B) = c / B, so the ratio is (B + 1) / B, largest at the range's start.
  if (hi > n) {
    const auto b = static_cast<double>(std::max(lo, n + 1));
    best = std::max(best, (b + 1) / b);
  }
  return best;
}

}  // namespace sparksim
