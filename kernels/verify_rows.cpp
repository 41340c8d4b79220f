// Logit rows, padded token indices and graph buckets of a device verify forward (verify_rows.hpp).
#include "kernels/verify_rows.hpp"

#include <stdexcept>

namespace sparksim::kernels {

std::vector<int> logit_rows(const RaggedBatch& batch, const std::vector<bool>& prefill) {
  if (!prefill.empty() && static_cast<int>(prefill.size()) != batch.requests()) {
    throw std::invalid_argument("logit_rows: prefill needs one flag per request");
  }
  std::vector<int> rows;
  for (int r = 0; r < batch.requests(); ++r) {
    const int first = batch.cu_seqlens[r];
    const int end = batch.cu_seqlens[r + 1];
    const bool chunk = !prefill.empty() && prefill[r];
    for (int t = chunk ? end - 1 : first; t < end; ++t) rows.push_back(t);
  }
  return rows;
}

VerifyTokenIndex verify_token_index(const RaggedBatch& batch, int padded_tokens, int spare_slot) {
  const int real = batch.total_tokens();
  if (padded_tokens < real) {
    throw std::invalid_argument("verify_token_index: padded token count below the batch's");
  }
  VerifyTokenIndex index;
  index.real_tokens = real;
  const auto n = static_cast<std::size_t>(padded_tokens);
  index.tokens.assign(n, 0);
  index.slot.assign(n, spare_slot);
  index.pos.assign(n, 0);
  index.kv_len.assign(n, 1);
  const std::vector<int> pos = batch.positions();
  const std::vector<int> req = batch.request_of_token();
  for (int t = 0; t < real; ++t) {
    index.tokens[t] = batch.tokens[t];
    index.slot[t] = batch.slots[req[t]];
    index.pos[t] = pos[t];
    index.kv_len[t] = pos[t] + 1;
  }
  return index;
}

int graph_bucket_of(int tokens, const std::vector<int>& buckets) {
  for (int b : buckets) {
    if (b >= tokens) return b;
  }
  return 0;
}

std::vector<int> graph_buckets(int max_bucket) {
  std::vector<int> out;
  for (int b : {1, 2, 4}) {
    if (b <= max_bucket) out.push_back(b);
  }
  for (int b = 8; b <= max_bucket; b += 8) out.push_back(b);
  return out;
}

}  // namespace sparksim::kernels
