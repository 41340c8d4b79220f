// The host half of a device verify forward: the rows the LM head runs on, the padded per-token
// indices of a graph bucket, and the bucket staircase, against hand-worked batches.
#include "kernels/verify_rows.hpp"

#include <catch2/catch.hpp>

namespace sparksim::kernels {
namespace {

// Three requests: a 3-token decode verify at context 5 (slot 1), a 4-token prefill chunk after
// 8 cached tokens (slot 0), a 1-token decode at context 2 (slot 2).
RaggedBatch three_requests() {
  return {{10, 11, 12, 20, 21, 22, 23, 30}, {0, 3, 7, 8}, {5, 8, 2}, {1, 0, 2}};
}

TEST_CASE("logit_rows: every verified row of a decode request, a chunk's last row only") {
  const RaggedBatch b = three_requests();
  CHECK(logit_rows(b, {false, true, false}) == std::vector<int>{0, 1, 2, 6, 7});
  CHECK(logit_rows(b, {}) == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(logit_rows(b, {true, true, true}) == std::vector<int>{2, 6, 7});
  CHECK_THROWS_WITH(logit_rows(b, {true}), Catch::Contains("one flag per request"));
}

TEST_CASE("RaggedBatch: each token's request, position and slot, worked by hand") {
  const RaggedBatch b = three_requests();
  CHECK(b.request_of_token() == std::vector<int>{0, 0, 0, 1, 1, 1, 1, 2});
  CHECK(b.positions() == std::vector<int>{5, 6, 7, 8, 9, 10, 11, 2});
  CHECK(b.slot_of_token() == std::vector<int>{1, 1, 1, 0, 0, 0, 0, 2});
}

TEST_CASE("verify_token_index pads to the bucket with rows in the spare slot") {
  const VerifyTokenIndex i = verify_token_index(three_requests(), 10, 3);
  CHECK(i.real_tokens == 8);
  CHECK(i.tokens == std::vector<int>{10, 11, 12, 20, 21, 22, 23, 30, 0, 0});
  CHECK(i.slot == std::vector<int>{1, 1, 1, 0, 0, 0, 0, 2, 3, 3});
  CHECK(i.pos == std::vector<int>{5, 6, 7, 8, 9, 10, 11, 2, 0, 0});
  CHECK(i.kv_len == std::vector<int>{6, 7, 8, 9, 10, 11, 12, 3, 1, 1});
  CHECK_THROWS(verify_token_index(three_requests(), 7, 3));
}

TEST_CASE("graph buckets 1, 2, 4, then multiples of 8, and a batch pads to the next one") {
  const std::vector<int> b = graph_buckets(32);
  CHECK(b == std::vector<int>{1, 2, 4, 8, 16, 24, 32});
  CHECK(graph_bucket_of(1, b) == 1);
  CHECK(graph_bucket_of(3, b) == 4);
  CHECK(graph_bucket_of(9, b) == 16);
  CHECK(graph_bucket_of(32, b) == 32);
  CHECK(graph_bucket_of(33, b) == 0);  // beyond the largest: eager, unpadded
  CHECK(graph_buckets(0).empty());
}

}  // namespace
}  // namespace sparksim::kernels
