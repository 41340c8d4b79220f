// One drafter round's request as the device drafter takes it: per request an anchor token, the
// committed context length and the KV slot, plus the sampling inputs. The host half lives here,
// beside no CUDA, so its validation (a repeated slot would let two requests write the same K/V
// rows and race) and the per-token index building are tested on the CPU.
#pragma once

#include <vector>

#include "kernels/ragged_batch.hpp"

namespace sparksim::kernels {

struct DraftRequest {
  std::vector<int> anchors;           // [R] last committed token of each request
  std::vector<int> context_lens;      // [R] committed positions in the draft cache
  std::vector<int> slots;             // [R] distinct draft-cache slots
  double temperature = 0.0;           // <= 0: greedy
  std::vector<double> uniforms;       // [R x gamma] when temperature > 0
  bool markov_and_confidence = true;  // false: dflash (no Markov head, no confidence)

  int requests() const { return static_cast<int>(anchors.size()); }
  // Throws std::invalid_argument naming the first problem: sizes, an anchor outside the
  // vocabulary, a slot out of range or repeated, context + gamma overflowing a slot (the block's
  // own K/V are written at context..context + gamma - 1), missing uniforms when sampling.
  void validate(const KvCacheShape& cache, int vocab, int gamma) const;
};

// Per block token (row r * gamma + k): its slot, its position context + k, and the positions it
// attends to: context + gamma (the block attends to itself non-causally).
struct DraftTokenIndex {
  std::vector<int> slot;
  std::vector<int> pos;
  std::vector<int> kv_len;
};
DraftTokenIndex draft_token_index(const DraftRequest& request, int gamma);

}  // namespace sparksim::kernels
