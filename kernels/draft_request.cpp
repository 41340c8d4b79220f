// Validation and token indices of a drafter round (draft_request.hpp).
#include "kernels/draft_request.hpp"

#include <set>
#include <stdexcept>
#include <string>

namespace sparksim::kernels {

void DraftRequest::validate(const KvCacheShape& cache, int vocab, int gamma) const {
  const auto fail = [](const std::string& what) { throw std::invalid_argument("draft: " + what); };
  const int r_count = requests();
  if (r_count < 1) fail("no requests");
  if (gamma < 1) fail("gamma must be >= 1");
  if (context_lens.size() != anchors.size() || slots.size() != anchors.size()) {
    fail("anchors, context_lens and slots must have one entry per request");
  }
  if (temperature > 0 && uniforms.size() != static_cast<std::size_t>(r_count) * gamma) {
    fail("sampling needs R x gamma uniforms");
  }
  std::set<int> seen;
  for (int r = 0; r < r_count; ++r) {
    const std::string req = "request " + std::to_string(r);
    if (anchors[r] < 0 || anchors[r] >= vocab) fail(req + " has an anchor outside the vocabulary");
    if (slots[r] < 0 || slots[r] >= cache.slots) fail(req + " has slot out of range");
    if (!seen.insert(slots[r]).second) fail(req + " repeats slot " + std::to_string(slots[r]));
    if (context_lens[r] < 0 || context_lens[r] + gamma > cache.max_tokens) {
      fail(req + ": context " + std::to_string(context_lens[r]) + " + block " +
           std::to_string(gamma) + " overflows the slot's " + std::to_string(cache.max_tokens));
    }
  }
}

DraftTokenIndex draft_token_index(const DraftRequest& request, int gamma) {
  const auto t = static_cast<std::size_t>(request.requests()) * static_cast<std::size_t>(gamma);
  DraftTokenIndex index;
  index.slot.resize(t);
  index.pos.resize(t);
  index.kv_len.resize(t);
  for (int r = 0; r < request.requests(); ++r) {
    for (int k = 0; k < gamma; ++k) {
      const auto row = static_cast<std::size_t>(r) * gamma + k;
      index.slot[row] = request.slots[r];
      index.pos[row] = request.context_lens[r] + k;
      index.kv_len[row] = request.context_lens[r] + gamma;  // non-causal: the whole block
    }
  }
  return index;
}

}  // namespace sparksim::kernels
