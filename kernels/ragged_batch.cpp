// Ragged batch helpers and validation.
#include "kernels/ragged_batch.hpp"

#include <set>
#include <stdexcept>
#include <string>

namespace sparksim::kernels {

std::vector<int> RaggedBatch::positions() const {
  std::vector<int> out(tokens.size());
  for (int r = 0; r < requests(); ++r) {
    for (int t = cu_seqlens[r]; t < cu_seqlens[r + 1]; ++t) {
      out[t] = context_lens[r] + (t - cu_seqlens[r]);
    }
  }
  return out;
}

std::vector<int> RaggedBatch::request_of_token() const {
  std::vector<int> out(tokens.size());
  for (int r = 0; r < requests(); ++r) {
    for (int t = cu_seqlens[r]; t < cu_seqlens[r + 1]; ++t) out[t] = r;
  }
  return out;
}

std::vector<int> RaggedBatch::slot_of_token() const {
  const std::vector<int> req = request_of_token();
  std::vector<int> out(req.size());
  for (std::size_t t = 0; t < req.size(); ++t) out[t] = slots[req[t]];
  return out;
}

void RaggedBatch::validate(const KvCacheShape& cache, int vocab) const {
  const auto fail = [](const std::string& what) { throw std::invalid_argument("batch: " + what); };
  const int r_count = requests();
  if (r_count < 1) fail("no requests");
  if (static_cast<int>(cu_seqlens.size()) != r_count + 1 ||
      static_cast<int>(slots.size()) != r_count) {
    fail("cu_seqlens must have R + 1 entries and slots R");
  }
  if (cu_seqlens[0] != 0 || cu_seqlens[r_count] != total_tokens()) {
    fail("cu_seqlens must run from 0 to the token count");
  }
  std::set<int> seen;
  for (int r = 0; r < r_count; ++r) {
    const std::string req = "request " + std::to_string(r);
    if (cu_seqlens[r + 1] <= cu_seqlens[r]) fail(req + " has no tokens");
    if (context_lens[r] < 0) fail(req + " has a negative context length");
    if (slots[r] < 0 || slots[r] >= cache.slots) fail(req + " has slot out of range");
    if (!seen.insert(slots[r]).second) fail(req + " repeats slot " + std::to_string(slots[r]));
    if (context_lens[r] + (cu_seqlens[r + 1] - cu_seqlens[r]) > cache.max_tokens) {
      fail(req + " overflows its slot's capacity of " + std::to_string(cache.max_tokens));
    }
  }
  for (int t : tokens) {
    if (t < 0 || t >= vocab) fail("token id " + std::to_string(t) + " outside the vocabulary");
  }
}

}  // namespace sparksim::kernels
