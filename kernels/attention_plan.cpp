// Path choice, split planning, packing and the log-sum-exp combine of attention_plan.hpp.
#include "kernels/attention_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sparksim::kernels {

namespace {

int ceil_div(long long a, long long b) {
  return static_cast<int>((a + b - 1) / b);
}

// Split items per KV head the grid aims for.
int target_split_items(int kv_heads, int sm_count, const AttentionPlanConfig& config) {
  return std::max(1, ceil_div(static_cast<long long>(config.blocks_per_sm) * sm_count, kv_heads));
}

}  // namespace

void AttentionPlanConfig::validate() const {
  const auto fail = [](const char* what) {
    throw std::invalid_argument(std::string("attention plan: ") + what);
  };
  if (prefill_min_width < 1) fail("prefill_min_width must be >= 1");
  if (tile_rows < 16 || tile_rows % 16 != 0) fail("tile_rows must be a positive multiple of 16");
  if (tile_keys < 16 || tile_keys % 16 != 0) fail("tile_keys must be a positive multiple of 16");
  if (min_keys_per_split < tile_keys) fail("min_keys_per_split must be >= tile_keys");
  if (blocks_per_sm < 1) fail("blocks_per_sm must be >= 1");
  if (extra_token_splits < 0) fail("extra_token_splits must be >= 0");
}

const char* attention_path_name(AttentionPath path) {
  return path == AttentionPath::split_k ? "split-k" : "prefill-tc";
}

AttentionPath attention_path(int width, int group, const AttentionPlanConfig& config) {
  if (width >= config.prefill_min_width) return AttentionPath::prefill_tc;
  if (static_cast<long long>(width) * group > config.tile_rows) return AttentionPath::prefill_tc;
  return AttentionPath::split_k;
}

std::vector<int> split_counts(const std::vector<int>& kv_lens, const std::vector<int>& widths,
                              int kv_heads, int sm_count, int token_split_budget,
                              const AttentionPlanConfig& config) {
  if (kv_lens.size() != widths.size()) {
    throw std::invalid_argument("split_counts: one width per kv length");
  }
  if (kv_heads < 1 || sm_count < 1) {
    throw std::invalid_argument("split_counts: kv_heads and sm_count must be >= 1");
  }
  long long total_keys = 0;
  long long total_width = 0;
  for (std::size_t r = 0; r < kv_lens.size(); ++r) {
    if (kv_lens[r] < 1 || widths[r] < 1) {
      throw std::invalid_argument("split_counts: kv lengths and widths must be >= 1");
    }
    total_keys += kv_lens[r];
    total_width += widths[r];
  }
  if (total_width > token_split_budget) {
    throw std::logic_error("split_counts: the workspace holds fewer rows than the tokens");
  }
  std::vector<int> splits(kv_lens.size(), 1);
  // Terminates: at target 1 every request has one split, sum(width) <= budget.
  for (int target = target_split_items(kv_heads, sm_count, config);; target = (target + 1) / 2) {
    long long rows = 0;
    for (std::size_t r = 0; r < kv_lens.size(); ++r) {
      const auto share = static_cast<int>(static_cast<long long>(kv_lens[r]) * target / total_keys);
      const int most = std::max(1, kv_lens[r] / config.min_keys_per_split);
      splits[r] = std::clamp(share, 1, most);
      rows += static_cast<long long>(widths[r]) * splits[r];
    }
    if (rows <= token_split_budget || target == 1) break;
  }
  return splits;
}

int split_keys(int kv_len, int splits, const AttentionPlanConfig& config) {
  if (kv_len < 1 || splits < 1) throw std::invalid_argument("split_keys: kv_len, splits >= 1");
  const int tiles = ceil_div(kv_len, config.tile_keys);
  return ceil_div(tiles, splits) * config.tile_keys;
}

AttentionPlanLayout attention_plan_layout(int token_capacity, int group, int kv_heads, int sm_count,
                                          const AttentionPlanConfig& config) {
  config.validate();
  if (token_capacity < 1 || group < 1 || kv_heads < 1 || sm_count < 1) {
    throw std::invalid_argument("attention plan layout: every count must be >= 1");
  }
  AttentionPlanLayout layout;
  layout.tokens = token_capacity;
  // sum ceil(kv / keys) <= total / keys + requests <= target + tokens (keys >= total / target).
  layout.split_items = target_split_items(kv_heads, sm_count, config) + token_capacity;
  // A tensor-core request has at least min(prefill_min_width, tile_rows / group + 1) tokens and
  // ceil(width x group / tile_rows) <= width x group / tile_rows + 1 tiles.
  const int min_tc_width = std::min(config.prefill_min_width, config.tile_rows / group + 1);
  layout.min_tensor_core_width = min_tc_width;
  layout.tile_items = ceil_div(static_cast<long long>(token_capacity) * group, config.tile_rows) +
                      ceil_div(token_capacity, min_tc_width);
  layout.token_splits = token_capacity + config.extra_token_splits;
  return layout;
}

AttentionPlan plan_attention(const RaggedBatch& batch, int padded_tokens, int group, int kv_heads,
                             int sm_count, const AttentionPlanLayout& layout,
                             const AttentionPlanConfig& config) {
  if (padded_tokens < batch.total_tokens() || padded_tokens > layout.tokens) {
    throw std::invalid_argument("plan_attention: padded tokens outside [batch tokens, capacity]");
  }
  AttentionPlan plan;
  const auto capacity = static_cast<std::size_t>(layout.tokens);
  plan.token_splits.assign(capacity, kTokenIsPadding);
  plan.token_partial.assign(capacity, 0);
  plan.token_stride.assign(capacity, 0);
  std::vector<int> split_kv;
  std::vector<int> split_width;
  for (int r = 0; r < batch.requests(); ++r) {
    const int width = batch.cu_seqlens[r + 1] - batch.cu_seqlens[r];
    plan.request_path.push_back(attention_path(width, group, config));
    if (plan.request_path.back() == AttentionPath::split_k) {
      split_kv.push_back(batch.context_lens[r] + width);
      split_width.push_back(width);
    }
  }
  const std::vector<int> counts =
      split_counts(split_kv, split_width, kv_heads, sm_count, layout.token_splits, config);
  std::size_t next_split_request = 0;
  for (int r = 0; r < batch.requests(); ++r) {
    const int first = batch.cu_seqlens[r];
    const int width = batch.cu_seqlens[r + 1] - first;
    const int context = batch.context_lens[r];
    const int slot = batch.slots[r];
    if (plan.request_path[r] == AttentionPath::split_k) {
      const int kv_len = context + width;
      const int keys = split_keys(kv_len, counts[next_split_request++], config);
      const int splits = ceil_div(kv_len, keys);
      plan.max_split_keys = std::max(plan.max_split_keys, std::min(keys, kv_len));
      for (int s = 0; s < splits; ++s) {
        plan.split_items.push_back({first, width, context, slot, s * keys,
                                    std::min(kv_len, (s + 1) * keys),
                                    plan.token_split_rows + s * width});
      }
      for (int j = 0; j < width; ++j) {
        plan.token_splits[first + j] = splits;
        plan.token_partial[first + j] = plan.token_split_rows + j;
        plan.token_stride[first + j] = width;
      }
      plan.token_split_rows += width * splits;
    } else {
      for (int row = 0; row < width * group; row += config.tile_rows) {
        plan.tile_items.push_back({first, width, context, slot, row});
      }
      for (int j = 0; j < width; ++j) plan.token_splits[first + j] = kTokenOnTensorCorePath;
    }
  }
  if (static_cast<int>(plan.split_items.size()) > layout.split_items ||
      static_cast<int>(plan.tile_items.size()) > layout.tile_items ||
      plan.token_split_rows > layout.token_splits) {
    throw std::logic_error("plan_attention: the plan exceeds its layout's capacity");
  }
  return plan;
}

std::vector<int> pack_attention_plan(const AttentionPlan& plan, const AttentionPlanLayout& layout) {
  if (static_cast<int>(plan.token_splits.size()) != layout.tokens) {
    throw std::invalid_argument("pack_attention_plan: plan and layout differ in token capacity");
  }
  std::vector<int> out(static_cast<std::size_t>(layout.ints()), 0);
  out[0] = static_cast<int>(plan.split_items.size());
  out[1] = static_cast<int>(plan.tile_items.size());
  int at = layout.split_offset();
  for (const SplitItem& s : plan.split_items) {
    const int fields[] = {s.first_token, s.width,   s.context,    s.slot,
                          s.key_begin,   s.key_end, s.partial_row};
    std::copy(std::begin(fields), std::end(fields), out.begin() + at);
    at += AttentionPlanLayout::kItemInts;
  }
  at = layout.tile_offset();
  for (const TileItem& t : plan.tile_items) {
    const int fields[] = {t.first_token, t.width, t.context, t.slot, t.row_begin};
    std::copy(std::begin(fields), std::end(fields), out.begin() + at);
    at += AttentionPlanLayout::kItemInts;
  }
  at = layout.token_offset();
  for (const auto* column : {&plan.token_splits, &plan.token_partial, &plan.token_stride}) {
    std::copy(column->begin(), column->end(), out.begin() + at);
    at += layout.tokens;
  }
  return out;
}

std::string describe_attention_plan(const AttentionPlan& plan) {
  int split_requests = 0;
  for (AttentionPath p : plan.request_path) split_requests += p == AttentionPath::split_k;
  const int tc_requests = static_cast<int>(plan.request_path.size()) - split_requests;
  std::string out;
  if (split_requests > 0) {
    out += "split-k: " + std::to_string(split_requests) + " requests, " +
           std::to_string(plan.split_items.size()) +
           " splits of <= " + std::to_string(plan.max_split_keys) + " keys";
  }
  if (tc_requests > 0) {
    out += std::string(out.empty() ? "" : "; ") + "prefill-tc: " + std::to_string(tc_requests) +
           " requests, " + std::to_string(plan.tile_items.size()) + " tiles";
  }
  return out.empty() ? "none" : out;
}

std::vector<double> combine_partials_lse(const std::vector<double>& lse,
                                         const std::vector<std::vector<double>>& o,
                                         double* out_lse) {
  if (lse.size() != o.size() || lse.empty()) {
    throw std::invalid_argument("combine_partials_lse: one output per lse, at least one");
  }
  const std::size_t dim = o[0].size();
  double max_lse = -std::numeric_limits<double>::infinity();
  for (std::size_t s = 0; s < lse.size(); ++s) {
    if (o[s].size() != dim) throw std::invalid_argument("combine_partials_lse: ragged outputs");
    max_lse = std::max(max_lse, lse[s]);
  }
  std::vector<double> out(dim, 0.0);
  if (max_lse == -std::numeric_limits<double>::infinity()) {
    if (out_lse != nullptr) *out_lse = max_lse;
    return out;
  }
  double weight_sum = 0.0;
  for (std::size_t s = 0; s < lse.size(); ++s) {
    const double w = std::exp(lse[s] - max_lse);  // 0 for an empty partial (lse = -inf)
    weight_sum += w;
    for (std::size_t d = 0; d < dim; ++d) out[d] += w * o[s][d];
  }
  for (double& v : out) v /= weight_sum;
  if (out_lse != nullptr) *out_lse = max_lse + std::log(weight_sum);
  return out;
}

}  // namespace sparksim::kernels
