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

#include "profiles/graph_padding.hpp"

namespace sparksim {

namespace {

// Profiles bound every coefficient, but a product with a huge batch or context could still leave
// int64 nanoseconds; converting such a double is undefined behaviour, so it is refused here.
[[noreturn]] void throw_step_too_long(double ns) {
  throw std::overflow_error("time model: a step of " + std::to_string(ns * 1e-9) +
                            " s is past the simulator's limit of " +
                            std::to_string(kMaxStepTime / kNanosPerSecond) +
                            " s per step (check the profile's units)");
}

// A drafter the profile has no cost for reached the time model: its caller skipped
// require_draft_cost(). Out of line for the same reason as above.
[[noreturn]] void throw_no_draft_cost(const DrafterSpec& drafter) {
  throw std::logic_error("time model: no draft cost for " + drafter.name +
                         " in this profile; require_draft_cost() must refuse it first");
}

// (The message is built out of line, so this check inlines into the per-step callers.)
// std::llround's result without its libm call (a few percent of a fleet's step): for ns >= 0,
// ns - trunc(ns) is exact, and a half rounds up, away from zero, as llround rounds it.
SimTime round_ns(double ns) {
  if (!(ns >= 0 && ns <= static_cast<double>(kMaxStepTime))) throw_step_too_long(ns);
  const auto whole = static_cast<SimTime>(ns);
  return ns - static_cast<double>(whole) >= 0.5 ? whole + 1 : whole;
}

}  // namespace

TimeModel::TimeModel(const Profile& profile)
    : verify_(profile.verify),
      draft_(profile.draft),
      host_overhead_(round_ns(profile.host_overhead_us * 1e3)),
      terms_(profile.step_terms) {
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
  prefill_pair_ns_ = verify_.prefill_attention_ns_per_pair.value_or(verify_.attention_ns_per_pair);
  const auto& h = verify_.head_tokens;
  if (h.size() != verify_.head_us.size() || h.size() == 1) {
    throw std::invalid_argument("TimeModel: the head table needs 0 or >= 2 points, equal length");
  }
  for (std::size_t i = 0; i + 1 < h.size(); ++i) {
    if (h[i + 1] <= h[i]) throw std::invalid_argument("TimeModel: head_tokens not ascending");
  }
  if (!h.empty()) {
    head_by_rows_us_.resize(static_cast<std::size_t>(kPaddedDenseTokens));
    for (std::int64_t r = 1; r < kPaddedDenseTokens; ++r) {
      head_by_rows_us_[static_cast<std::size_t>(r)] = head_us(r);
    }
  }
  const auto& ar = verify_.decode_attention_requests;
  const auto& ac = verify_.decode_attention_context;
  if (!ar.empty() || !ac.empty() || !verify_.decode_attention_us.empty()) {
    bool ok = ar.size() >= 2 && ac.size() >= 2 && verify_.decode_attention_us.size() == ar.size();
    for (const auto& row : verify_.decode_attention_us) ok = ok && row.size() == ac.size();
    for (std::size_t i = 0; ok && i + 1 < ar.size(); ++i) ok = ar[i] < ar[i + 1];
    for (std::size_t i = 0; ok && i + 1 < ac.size(); ++i) ok = ac[i] < ac[i + 1];
    if (!ok) {
      throw std::invalid_argument(
          "TimeModel: the decode-attention table needs >= 2 ascending requests and contexts and "
          "one row per request count of the contexts' length");
    }
  }
  padded_dense_us_.resize(static_cast<std::size_t>(kPaddedDenseTokens));
  for (std::int64_t t = 0; t < kPaddedDenseTokens; ++t) {
    padded_dense_us_[static_cast<std::size_t>(t)] = dense_us(pad(t));
  }
}

std::int64_t TimeModel::pad(std::int64_t tokens) const {
  return pad_to_graph_bucket(verify_.graph_buckets, tokens);
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

double TimeModel::head_us(std::int64_t rows) const {
  const auto& x = verify_.head_tokens;
  const auto& y = verify_.head_us;
  if (x.empty() || rows <= 0) return 0;
  if (rows <= x.front()) return y.front();
  const auto it = std::upper_bound(x.begin(), x.end(), rows);
  const std::size_t i = static_cast<std::size_t>(it - x.begin()) - 1;
  if (x[i] == rows) return y[i];
  // Past the last point the last segment's slope continues, as for dense_us.
  const std::size_t seg = std::min(i, x.size() - 2);
  const double slope = (y[seg + 1] - y[seg]) / static_cast<double>(x[seg + 1] - x[seg]);
  return y[i] + slope * static_cast<double>(rows - x[i]);
}

namespace {

// Segment of an ascending grid for x: index i with the fraction f of the way to i + 1 (f < 0 is
// clamped to the first point; f > 1 past the last point extrapolates the last segment).
void grid_segment(const std::vector<std::int64_t>& grid, double x, std::size_t& i, double& f) {
  if (x <= static_cast<double>(grid.front())) {
    i = 0;
    f = 0;
    return;
  }
  const auto it = std::lower_bound(grid.begin(), grid.end(), x, [](std::int64_t g, double v) {
    return static_cast<double>(g) < v;
  });
  i = std::min(static_cast<std::size_t>(it - grid.begin()), grid.size() - 1);
  if (i > 0) --i;
  const double lo = static_cast<double>(grid[i]);
  f = (x - lo) / (static_cast<double>(grid[i + 1]) - lo);
}

}  // namespace

double TimeModel::decode_attention_us(std::int64_t requests, std::int64_t context_tokens) const {
  const auto& rs = verify_.decode_attention_requests;
  if (rs.empty() || requests <= 0) return 0;
  const auto& table = verify_.decode_attention_us;
  std::size_t c = 0;
  double fc = 0;
  grid_segment(verify_.decode_attention_context,
               static_cast<double>(context_tokens) / static_cast<double>(requests), c, fc);
  // Along context at one request count (the last slope continues past the last context).
  const auto at = [&](std::size_t r) { return table[r][c] + fc * (table[r][c + 1] - table[r][c]); };
  if (requests >= rs.back()) {
    // Past the largest batch: linear in batch, the database reader's rule.
    return at(rs.size() - 1) * static_cast<double>(requests) / static_cast<double>(rs.back());
  }
  std::size_t r = 0;
  double fr = 0;
  grid_segment(rs, static_cast<double>(requests), r, fr);
  return at(r) + fr * (at(r + 1) - at(r));
}

SimTime TimeModel::verify_time(const BatchShape& shape) const {
  const std::int64_t tokens = shape.verify_tokens + shape.prefill_tokens;
  if (tokens <= 0) return 0;
  double head = 0;
  if (!head_by_rows_us_.empty()) {
    // The head runs on the verified rows, and on one row of a prefill chunk (its next token).
    const std::int64_t rows = shape.verify_tokens + (shape.prefill_tokens > 0 ? 1 : 0);
    head = rows < kPaddedDenseTokens ? head_by_rows_us_[static_cast<std::size_t>(rows)]
                                     : head_us(rows);
  }
  const double ns =
      (verify_.fixed_us + head +
       verify_.per_request_us * static_cast<double>(shape.decode_requests) +
       (tokens < kPaddedDenseTokens ? padded_dense_us_[static_cast<std::size_t>(tokens)]
                                    : dense_us(pad(tokens))) +
       terms_.per_step_us + terms_.per_sequence_us * static_cast<double>(shape.decode_requests)) *
          1e3 +
      verify_.kv_read_ns_per_context_token * static_cast<double>(shape.decode_context_tokens) +
      verify_.attention_ns_per_pair * static_cast<double>(shape.verify_attention_pairs) +
      prefill_pair_ns_ * static_cast<double>(shape.prefill_attention_pairs) +
      (shape.prefill_tokens > 0 ? verify_.prefill_chunk_us * 1e3 : 0.0) +
      verify_.prefill_token_ns * static_cast<double>(shape.prefill_tokens) +
      // (Most profiles have no decode-attention table: no call for its 0 on every step.)
      (verify_.decode_attention_requests.empty()
           ? 0.0
           : decode_attention_us(shape.decode_requests, shape.decode_context_tokens) * 1e3);
  return round_ns(ns);
}

VerifyTerms TimeModel::verify_terms(const BatchShape& shape) const {
  VerifyTerms t;
  const std::int64_t tokens = shape.verify_tokens + shape.prefill_tokens;
  if (tokens <= 0) return t;
  t.padded_tokens = pad(tokens);
  t.fixed_us = verify_.fixed_us;
  t.dense_us = dense_us(t.padded_tokens);
  if (!verify_.head_tokens.empty()) {
    t.head_rows = shape.verify_tokens + (shape.prefill_tokens > 0 ? 1 : 0);
    t.head_us = head_us(t.head_rows);
  }
  t.per_request_us = verify_.per_request_us * static_cast<double>(shape.decode_requests);
  t.kv_read_us = verify_.kv_read_ns_per_context_token *
                 static_cast<double>(shape.decode_context_tokens) * 1e-3;
  t.attention_us =
      verify_.attention_ns_per_pair * static_cast<double>(shape.verify_attention_pairs) * 1e-3;
  t.prefill_attention_us =
      prefill_pair_ns_ * static_cast<double>(shape.prefill_attention_pairs) * 1e-3;
  t.prefill_chunk_us = shape.prefill_tokens > 0 ? verify_.prefill_chunk_us : 0.0;
  t.prefill_token_us = verify_.prefill_token_ns * static_cast<double>(shape.prefill_tokens) * 1e-3;
  t.decode_attention_us = decode_attention_us(shape.decode_requests, shape.decode_context_tokens);
  t.per_step_us = terms_.per_step_us;
  t.per_sequence_us = terms_.per_sequence_us * static_cast<double>(shape.decode_requests);
  return t;
}

SimTime TimeModel::draft_time(const DrafterSpec& drafter, std::int64_t requests) const {
  return draft_time(drafter, requests, 0);
}

SimTime TimeModel::draft_time(const DrafterSpec& drafter, std::int64_t requests,
                              std::int64_t context_tokens) const {
  if (requests <= 0 || !drafter.speculates()) return 0;  // no drafter, no draft forward
  const std::optional<DraftTimeModel>& model = draft_[static_cast<int>(drafter.family)];
  if (!model) throw_no_draft_cost(drafter);
  const DraftTimeModel& m = *model;
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

void SpsTable::assign(std::span<const double> sps_by_tokens) {
  if (sps_by_tokens.empty()) throw std::invalid_argument("SpsTable: needs at least one value");
  sps_.assign(sps_by_tokens.begin(), sps_by_tokens.end());
  tail_tokens_per_s_ = sps_.back() * static_cast<double>(sps_.size());
  compute_step_ratios();
}

void SpsTable::compute_step_ratios() {
  const auto n = static_cast<std::size_t>(max_tokens());
  // Levels are resized, not rebuilt, so a refilled table allocates nothing once warm.
  if (ratio_max_.empty()) ratio_max_.emplace_back();
  ratio_max_[0].resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = static_cast<std::int64_t>(i) + 1;
    const double r = steps_per_s(b) / steps_per_s(b + 1);
    // A zero or NaN SPS gives no usable bound: +inf makes every bound built on it say "unknown".
    ratio_max_[0][i] = std::isnan(r) ? std::numeric_limits<double>::infinity() : r;
  }
  std::size_t levels = 1;
  for (int k = 1; k < kRatioLevels && (std::size_t{1} << k) <= n; ++k) {
    if (ratio_max_.size() <= levels) ratio_max_.emplace_back();
    const std::vector<double>& below = ratio_max_[levels - 1];
    std::vector<double>& level = ratio_max_[levels];
    const std::size_t half = std::size_t{1} << (k - 1);
    level.resize(n - 2 * half + 1);
    for (std::size_t i = 0; i < level.size(); ++i) level[i] = std::max(below[i], below[i + half]);
    ++levels;
  }
  // Levels a larger table left behind stay allocated but unused.
  ratio_levels_ = levels;
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
    const int level =
        std::min(static_cast<int>(ratio_levels_) - 1, static_cast<int>(std::bit_width(width)) - 1);
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
