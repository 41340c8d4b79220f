// The host half of the verify forward's attention: path choice, split counts, work items and
// their packing against hand-worked batches; capacities never exceeded over random batches; the
// log-sum-exp combine against closed forms and the whole-range attention reference.
#include "kernels/attention_plan.hpp"

#include <cmath>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "kernels/reference/ops_ref.hpp"

namespace sparksim::kernels {
namespace {

TEST_CASE("attention_path: decode rows split-K, chunks and over-wide groups tensor-core") {
  const AttentionPlanConfig c;  // prefill_min_width 16, tile_rows 64
  CHECK(attention_path(1, 4, c) == AttentionPath::split_k);
  CHECK(attention_path(15, 4, c) == AttentionPath::split_k);  // 60 rows
  CHECK(attention_path(16, 4, c) == AttentionPath::prefill_tc);
  CHECK(attention_path(8, 8, c) == AttentionPath::split_k);     // 64 rows: one tile
  CHECK(attention_path(9, 8, c) == AttentionPath::prefill_tc);  // 72 rows
  CHECK(std::string(attention_path_name(AttentionPath::split_k)) == "split-k");
}

TEST_CASE("split_counts fill the SMs in proportion to the keys, within the workspace") {
  const AttentionPlanConfig c;  // min 128 keys per split, tiles of 64, 2 blocks per SM
  // H100 (132 SMs), 8 KV heads: a target of 33 splits. One request at 2k context: 33 by its
  // share, capped at 2049 / 128 = 16.
  CHECK(split_counts({2049}, {1}, 8, 132, 2000, c) == std::vector<int>{16});
  // 16 requests of width 4 at 2048 + 4 keys: floor(2052 x 33 / 32832) = 2 each: 32 x 8 = 256
  // blocks, one wave of two blocks per SM.
  CHECK(split_counts(std::vector<int>(16, 2052), std::vector<int>(16, 4), 8, 132, 2000, c) ==
        std::vector<int>(16, 2));
  // Unequal requests: 3000 and 1000 keys, target 33: shares 24.75 and 8.25, floored to 24 and
  // 8, capped at 3000 / 128 = 23 and 1000 / 128 = 7.
  CHECK(split_counts({3000, 1000}, {1, 1}, 8, 132, 2000, c) == std::vector<int>{23, 7});
  // A workspace of 8 rows for two width-4 requests: target 33 (7 each by the cap: 56 rows),
  // 17 (7), 9 (4: 32 rows), 5 (2: 16), 3 (1: 8 rows).
  CHECK(split_counts({1000, 1000}, {4, 4}, 8, 132, 8, c) == std::vector<int>{1, 1});
  CHECK_THROWS_AS(split_counts({1000, 1000}, {4, 4}, 8, 132, 7, c), std::logic_error);
  CHECK(split_counts({}, {}, 8, 132, 8, c).empty());
}

TEST_CASE("split_keys shares whole tiles out, so the split count may shrink") {
  const AttentionPlanConfig c;               // tiles of 64
  CHECK(split_keys(2052, 2, c) == 17 * 64);  // 33 tiles: 17 + 16
  CHECK(split_keys(2049, 16, c) == 3 * 64);  // 33 tiles, 3 each: 11 splits of <= 192 keys
  CHECK(split_keys(2049, 1, c) == 33 * 64);
  CHECK(split_keys(10, 4, c) == 64);
}

// Request 0: 3 tokens after 100 (slot 1); request 1: a 20-token chunk after 5 (slot 0);
// request 2: 1 token after 300 (slot 2). GQA group 4, 2 KV heads.
RaggedBatch mixed_batch() {
  RaggedBatch b;
  b.cu_seqlens = {0, 3, 23, 24};
  b.context_lens = {100, 5, 300};
  b.slots = {1, 0, 2};
  b.tokens.assign(24, 7);
  return b;
}

AttentionPlanConfig small_config() {
  AttentionPlanConfig c;
  c.min_keys_per_split = 64;
  c.blocks_per_sm = 1;
  c.extra_token_splits = 16;
  return c;
}

TEST_CASE("plan_attention on a mixed batch, worked by hand") {
  const AttentionPlanConfig c = small_config();
  // 8 SMs, 2 KV heads, 1 block per SM: a target of 4 splits over 103 + 301 keys: request 0
  // floor(1.02) = 1, request 2 floor(2.98) = 2 of ceil(5 tiles / 2) = 3 tiles (192 keys).
  const AttentionPlanLayout layout = attention_plan_layout(32, 4, 2, 8, c);
  CHECK(layout.split_items == 4 + 32);
  CHECK(layout.tile_items == 2 + 2);  // ceil(32 x 4 / 64) + ceil(32 / min(16, 17))
  CHECK(layout.token_splits == 32 + 16);
  CHECK(layout.min_tensor_core_width == 16);
  CHECK(attention_plan_layout(32, 8, 2, 8, c).min_tensor_core_width == 9);  // 9 x 8 > 64 rows
  const AttentionPlan p = plan_attention(mixed_batch(), 26, 4, 2, 8, layout, c);
  CHECK(p.max_split_keys == 192);
  CHECK(p.request_path == std::vector<AttentionPath>{AttentionPath::split_k,
                                                     AttentionPath::prefill_tc,
                                                     AttentionPath::split_k});
  const std::vector<SplitItem> splits = {
      {0, 3, 100, 1, 0, 103, 0}, {23, 1, 300, 2, 0, 192, 3}, {23, 1, 300, 2, 192, 301, 4}};
  CHECK(p.split_items == splits);
  // 20 tokens x 4 heads = 80 rows: tiles at rows 0 and 64.
  CHECK(p.tile_items == std::vector<TileItem>{{3, 20, 5, 0, 0}, {3, 20, 5, 0, 64}});
  CHECK(p.token_split_rows == 5);
  std::vector<int> want_splits(32, kTokenIsPadding);
  std::vector<int> want_partial(32, 0);
  std::vector<int> want_stride(32, 0);
  for (int t = 0; t < 3; ++t) {
    want_splits[t] = 1;
    want_partial[t] = t;
    want_stride[t] = 3;
  }
  for (int t = 3; t < 23; ++t) want_splits[t] = kTokenOnTensorCorePath;
  want_splits[23] = 2;
  want_partial[23] = 3;
  want_stride[23] = 1;
  CHECK(p.token_splits == want_splits);
  CHECK(p.token_partial == want_partial);
  CHECK(p.token_stride == want_stride);
  CHECK(describe_attention_plan(p) ==
        "split-k: 2 requests, 3 splits of <= 192 keys; prefill-tc: 1 requests, 2 tiles");

  const std::vector<int> packed = pack_attention_plan(p, layout);
  REQUIRE(static_cast<int>(packed.size()) == layout.ints());
  CHECK(packed[0] == 3);
  CHECK(packed[1] == 2);
  const int s2 = layout.split_offset() + 2 * AttentionPlanLayout::kItemInts;
  CHECK(std::vector<int>(packed.begin() + s2, packed.begin() + s2 + 7) ==
        std::vector<int>{23, 1, 300, 2, 192, 301, 4});
  const int t1 = layout.tile_offset() + AttentionPlanLayout::kItemInts;
  CHECK(std::vector<int>(packed.begin() + t1, packed.begin() + t1 + 5) ==
        std::vector<int>{3, 20, 5, 0, 64});
  CHECK(packed[layout.token_offset() + 23] == 2);
  CHECK(packed[layout.token_offset() + 32 + 23] == 3);
  CHECK(packed[layout.token_offset() + 64 + 1] == 3);
}

TEST_CASE("plan_attention never exceeds its layout and covers every key once") {
  std::mt19937 rng(2026);
  const AttentionPlanConfig c;
  for (int trial = 0; trial < 300; ++trial) {
    const int capacity = std::uniform_int_distribution<int>(1, 200)(rng);
    const int group = std::uniform_int_distribution<int>(1, 16)(rng);
    const int kv_heads = std::uniform_int_distribution<int>(1, 8)(rng);
    const int sms = std::uniform_int_distribution<int>(1, 150)(rng);
    const AttentionPlanLayout layout = attention_plan_layout(capacity, group, kv_heads, sms, c);
    RaggedBatch b;
    b.cu_seqlens = {0};
    const int tokens = std::uniform_int_distribution<int>(1, capacity)(rng);
    while (b.cu_seqlens.back() < tokens) {
      const int left = tokens - b.cu_seqlens.back();
      const int w = std::min(left, std::uniform_int_distribution<int>(1, 40)(rng));
      b.cu_seqlens.push_back(b.cu_seqlens.back() + w);
      b.context_lens.push_back(std::uniform_int_distribution<int>(0, 40000)(rng));
      b.slots.push_back(b.requests() - 1);
    }
    b.tokens.assign(static_cast<std::size_t>(tokens), 0);
    const AttentionPlan p = plan_attention(b, tokens, group, kv_heads, sms, layout, c);
    // Each split-K request's splits tile [0, context + width) in order.
    std::vector<int> next_key(static_cast<std::size_t>(b.requests()), 0);
    int rows = 0;
    for (const SplitItem& s : p.split_items) {
      int r = 0;
      while (b.cu_seqlens[r] != s.first_token) ++r;
      CHECK(s.key_begin == next_key[r]);
      CHECK(s.key_end > s.key_begin);
      next_key[r] = s.key_end;
      rows += s.width;
    }
    CHECK(rows == p.token_split_rows);
    for (int r = 0; r < b.requests(); ++r) {
      const int width = b.cu_seqlens[r + 1] - b.cu_seqlens[r];
      if (p.request_path[r] == AttentionPath::split_k) {
        CHECK(next_key[r] == b.context_lens[r] + width);
      }
    }
  }
}

TEST_CASE("combine_partials_lse: two single-key splits, closed form") {
  // Scores a and b, values v1 and v2: softmax weights e^a / (e^a + e^b).
  const double a = 0.3;
  const double b = -1.2;
  double lse = 0.0;
  const std::vector<double> out = combine_partials_lse({a, b}, {{1.0, 2.0}, {-3.0, 5.0}}, &lse);
  const double wa = std::exp(a) / (std::exp(a) + std::exp(b));
  CHECK(out[0] == Approx(wa * 1.0 + (1 - wa) * -3.0).epsilon(1e-14));
  CHECK(out[1] == Approx(wa * 2.0 + (1 - wa) * 5.0).epsilon(1e-14));
  CHECK(lse == Approx(std::log(std::exp(a) + std::exp(b))).epsilon(1e-14));
}

TEST_CASE("combine_partials_lse: an empty split counts for nothing, all empty give zeros") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(combine_partials_lse({-inf, 0.5}, {{9.0}, {4.0}}) == std::vector<double>{4.0});
  double lse = 0.0;
  CHECK(combine_partials_lse({-inf, -inf}, {{9.0}, {4.0}}, &lse) == std::vector<double>{0.0});
  CHECK(lse == -inf);
  CHECK_THROWS(combine_partials_lse({}, {}));
}

TEST_CASE("combine_partials_lse of the splits of a softmax equals attention over all keys") {
  std::mt19937 rng(7);
  std::normal_distribution<double> n01(0.0, 1.0);
  const int dim = 16;
  const int count = 53;
  std::vector<double> q(dim);
  std::vector<float> k(static_cast<std::size_t>(count) * dim);
  std::vector<float> v(k.size());
  for (double& x : q) x = 2.0 * n01(rng);
  for (float& x : k) x = static_cast<float>(n01(rng));
  for (float& x : v) x = static_cast<float>(n01(rng));
  std::vector<double> whole(dim);
  attention_ref(q.data(), k.data(), v.data(), count, dim, dim, whole.data());
  // Splits [0, 20), [20, 21), [21, 53): each one's normalised output from the reference, its lse
  // by hand.
  std::vector<double> lses;
  std::vector<std::vector<double>> outs;
  for (auto [begin, end] : {std::pair{0, 20}, std::pair{20, 21}, std::pair{21, 53}}) {
    std::vector<double> o(dim);
    attention_ref(q.data(), k.data() + begin * dim, v.data() + begin * dim, end - begin, dim, dim,
                  o.data());
    double sum = 0.0;
    for (int j = begin; j < end; ++j) {
      double dot = 0.0;
      for (int d = 0; d < dim; ++d) dot += q[d] * k[static_cast<std::size_t>(j) * dim + d];
      sum += std::exp(dot / std::sqrt(static_cast<double>(dim)));
    }
    lses.push_back(std::log(sum));
    outs.push_back(o);
  }
  const std::vector<double> combined = combine_partials_lse(lses, outs);
  for (int d = 0; d < dim; ++d) CHECK(combined[d] == Approx(whole[d]).margin(1e-12));
}

}  // namespace
}  // namespace sparksim::kernels
