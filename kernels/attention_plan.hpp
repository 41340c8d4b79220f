// The host half of the verify forward's attention, beside no CUDA so it is tested on the CPU:
// which path each request takes (split-K decode attention or tensor-core prefill tiles), how many
// splits of its keys the split-K path uses (from the context lengths and the SM count), the work
// items both kernels read, and the log-sum-exp combine that merges the splits. The work lists are
// packed into a fixed layout per token capacity, so a CUDA graph captured for a bucket replays
// them: grids are sized by the capacity and blocks past the batch's item count exit.
#pragma once

#include <string>
#include <vector>

#include "kernels/ragged_batch.hpp"

namespace sparksim::kernels {

struct AttentionPlanConfig {
  // A request with at least this many tokens in the batch (a prefill chunk) takes the
  // tensor-core path; fewer (decode verify rows) take split-K, unless its rows (tokens x the GQA
  // group) exceed one tile.
  int prefill_min_width = 16;
  int tile_rows = 64;  // (token, group head) rows one block holds; the kernels' BM
  int tile_keys = 64;  // keys per shared-memory tile; the kernels' BN
  int min_keys_per_split = 128;
  // Resident split-K blocks aimed for per SM (shared memory allows two on sm_90).
  int blocks_per_sm = 2;
  // Partial results (one per token, head and split) beyond one per token the workspace holds.
  int extra_token_splits = 1024;
  void validate() const;  // std::invalid_argument naming the bad field
};

enum class AttentionPath { split_k, prefill_tc };
const char* attention_path_name(AttentionPath path);  // "split-k", "prefill-tc"

// The path of a request with `width` tokens in the batch and `group` query heads per KV head.
AttentionPath attention_path(int width, int group, const AttentionPlanConfig& config);

// Split counts of the split-K requests of a batch (kv_lens[r]: keys the request's last row sees,
// widths[r]: its tokens). The grid aims at blocks_per_sm x sm_count blocks over kv_heads, i.e.
// target = ceil(that / kv_heads) splits in all, shared in proportion to the keys: request r gets
// floor(kv_r x target / total keys) splits, at least 1 and at most floor(kv_r /
// min_keys_per_split); the target halves until sum(width x splits) fits token_split_budget.
// Balanced ranges follow from split_keys; the count may then shrink (see there).
std::vector<int> split_counts(const std::vector<int>& kv_lens, const std::vector<int>& widths,
                              int kv_heads, int sm_count, int token_split_budget,
                              const AttentionPlanConfig& config);
// Keys per split of a request of kv_len keys cut into `splits`: its tiles (ceil(kv_len /
// tile_keys)) shared out, ceil(tiles / splits) tiles each, so every split but the last is whole
// tiles. The request then has ceil(kv_len / split_keys) splits (<= `splits`): the critical path
// is the same and no block is wasted on a sliver.
int split_keys(int kv_len, int splits, const AttentionPlanConfig& config);

// One split-K block's work (per KV head): a request's rows over keys [key_begin, key_end); its
// partial results go to token-split rows partial_row + j for the request's token j.
struct SplitItem {
  int first_token = 0;
  int width = 0;
  int context = 0;
  int slot = 0;
  int key_begin = 0;
  int key_end = 0;
  int partial_row = 0;
  bool operator==(const SplitItem&) const = default;
};

// One tensor-core block's work (per KV head): rows [row_begin, row_begin + tile_rows) of a
// request's (token, group head) rows, row i = token i / group, head i % group; all the keys its
// rows see.
struct TileItem {
  int first_token = 0;
  int width = 0;
  int context = 0;
  int slot = 0;
  int row_begin = 0;
  bool operator==(const TileItem&) const = default;
};

// Token markers of AttentionPlan::token_splits.
inline constexpr int kTokenOnTensorCorePath = -1;
inline constexpr int kTokenIsPadding = 0;

struct AttentionPlan {
  int max_split_keys = 0;  // the longest split; 0 when no request takes split-K
  std::vector<AttentionPath> request_path;
  std::vector<SplitItem> split_items;
  std::vector<TileItem> tile_items;
  // Per padded token: its split count (split-K), kTokenOnTensorCorePath, or kTokenIsPadding (the
  // combine writes zeros); its split 0's token-split row; the rows between its splits.
  std::vector<int> token_splits;
  std::vector<int> token_partial;
  std::vector<int> token_stride;
  int token_split_rows = 0;  // partial rows used: sum over split-K requests of width x splits
};

// The fixed layout of a packed plan for a token capacity (ints): the two item counts, the split
// items (8 ints each), the tile items (8 ints each), then the three per-token arrays.
struct AttentionPlanLayout {
  int tokens = 0;
  int split_items = 0;   // capacity
  int tile_items = 0;    // capacity
  int token_splits = 0;  // partial rows the workspace holds
  // The fewest tokens a tensor-core request has: a bucket below it never launches that kernel.
  int min_tensor_core_width = 1;
  static constexpr int kItemInts = 8;
  static constexpr int kHeaderInts = 4;
  int split_offset() const { return kHeaderInts; }
  int tile_offset() const { return split_offset() + kItemInts * split_items; }
  int token_offset() const { return tile_offset() + kItemInts * tile_items; }
  int ints() const { return token_offset() + 3 * tokens; }
};
AttentionPlanLayout attention_plan_layout(int token_capacity, int group, int kv_heads, int sm_count,
                                          const AttentionPlanConfig& config);

// The plan of `batch` padded to `padded_tokens` under `layout` (whose capacities it never
// exceeds: std::logic_error if it would, a bug).
AttentionPlan plan_attention(const RaggedBatch& batch, int padded_tokens, int group, int kv_heads,
                             int sm_count, const AttentionPlanLayout& layout,
                             const AttentionPlanConfig& config);
std::vector<int> pack_attention_plan(const AttentionPlan& plan, const AttentionPlanLayout& layout);

// "split-k: 16 requests, 32 splits of <= 1088 keys; prefill-tc: 1 requests, 4 tiles".
std::string describe_attention_plan(const AttentionPlan& plan);

// The split-K combine: partial s attended a disjoint share of the keys and holds its normalised
// output o[s] (dim values) and lse[s] = max score + log(sum exp(score - max)) (-inf: it saw no
// key). Returns sum_s exp(lse_s - M) o_s / sum_s exp(lse_s - M), M = max lse: softmax attention
// over the union of the keys. All partials empty: zeros. out_lse (optional) gets the union's lse.
std::vector<double> combine_partials_lse(const std::vector<double>& lse,
                                         const std::vector<std::vector<double>>& o,
                                         double* out_lse = nullptr);

}  // namespace sparksim::kernels
