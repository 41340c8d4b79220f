// The host half of a device verify forward's indices, beside no CUDA so it is tested on the CPU:
// which rows need logits (the LM head is the widest GEMM of a small batch, so it runs on those
// rows only), and the per-token index arrays padded to a fixed token count (a CUDA graph captured
// for a bucket replays on fixed-size buffers; padding rows write and read a spare KV slot that no
// request owns, so they never touch a request's cache).
#pragma once

#include <vector>

#include "kernels/ragged_batch.hpp"

namespace sparksim::kernels {

// Rows of `batch` whose logits a step uses: every row of a decode request (its 1 + l verified
// positions) and the last row of a prefill chunk (the distribution of the token after it).
// prefill[r] says which requests are prefill chunks; empty: none are. Ascending row indices.
std::vector<int> logit_rows(const RaggedBatch& batch, const std::vector<bool>& prefill);

// Per token of a batch padded to `padded_tokens` (>= its token count): token id, KV slot,
// position and attended length (position + 1, causal). Padding rows: token 0, `spare_slot`,
// position 0, length 1.
struct VerifyTokenIndex {
  int real_tokens = 0;
  std::vector<int> tokens;
  std::vector<int> slot;
  std::vector<int> pos;
  std::vector<int> kv_len;
};
VerifyTokenIndex verify_token_index(const RaggedBatch& batch, int padded_tokens, int spare_slot);

// The CUDA-graph bucket a batch of `tokens` runs in: the smallest bucket >= tokens, or 0 when
// tokens exceeds the largest (the batch runs eagerly, unpadded). `buckets` ascending.
int graph_bucket_of(int tokens, const std::vector<int>& buckets);

// 1, 2, 4, then multiples of 8 up to max_bucket: vLLM's capture sizes, the same padding staircase
// as the time model's (profiles/analytic_profile.hpp vllm_graph_buckets).
std::vector<int> graph_buckets(int max_bucket);

}  // namespace sparksim::kernels
