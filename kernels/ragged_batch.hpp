// A flattened ragged batch, as production engines pass one verify step to the GPU: the new tokens
// of all requests in one array, request r owning tokens [cu_seqlens[r], cu_seqlens[r+1]) at
// positions context_lens[r], context_lens[r] + 1, ...; each request's K/V live in its own slot of
// a KV cache with a fixed per-slot capacity. Shapes are validated here, on the host, before any
// kernel runs.
#pragma once

#include <vector>

namespace sparksim::kernels {

// Layout of a KV cache: [layer][slot][token][kv_head][head_dim], K and V in separate arrays.
struct KvCacheShape {
  int layers = 0;
  int slots = 0;
  int max_tokens = 0;  // capacity of one slot
  int kv_heads = 0;
  int head_dim = 0;
  long long elements() const {
    return static_cast<long long>(layers) * slots * max_tokens * kv_heads * head_dim;
  }
  // Offset of (layer, slot, token, head 0, dim 0).
  long long offset(int layer, int slot, int token) const {
    return ((static_cast<long long>(layer) * slots + slot) * max_tokens + token) *
           static_cast<long long>(kv_heads) * head_dim;
  }
};

// A KV cache on the host (the CPU reference's; float storage is far finer than the GPU's bf16).
struct HostKvCache {
  KvCacheShape shape;
  std::vector<float> k;
  std::vector<float> v;
  explicit HostKvCache(const KvCacheShape& s)
      : shape(s), k(static_cast<std::size_t>(s.elements())), v(k.size()) {}
};

struct RaggedBatch {
  std::vector<int> tokens;        // [T] token ids
  std::vector<int> cu_seqlens;    // [R + 1]; cu_seqlens[0] = 0; every request has >= 1 token
  std::vector<int> context_lens;  // [R] tokens already in the request's KV cache
  std::vector<int> slots;         // [R] distinct KV cache slots

  int requests() const { return static_cast<int>(context_lens.size()); }
  int total_tokens() const { return static_cast<int>(tokens.size()); }
  std::vector<int> positions() const;         // [T] absolute position of each token
  std::vector<int> request_of_token() const;  // [T] owning request
  std::vector<int> slot_of_token() const;     // [T] the owning request's slot
  // Throws std::invalid_argument naming the first problem: sizes, offsets not increasing from 0 to
  // T, a token id outside [0, vocab), a slot out of range or repeated, a request that overflows
  // its slot's capacity.
  void validate(const KvCacheShape& cache, int vocab) const;
};

}  // namespace sparksim::kernels
