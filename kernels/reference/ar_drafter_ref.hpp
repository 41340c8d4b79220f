// What the two autoregressive single-layer drafters (MTP-1: mtp1_ref.hpp, EAGLE-3:
// eagle3_ref.hpp) share: a round's result and sampling options, and the pieces of one pass that
// do not depend on how the layer's input is formed: the attention of a pass over [the drafter's
// cached positions | the round's earlier passes | itself] and the choice of a token from logits.
#pragma once

#include <string>
#include <vector>

#include "kernels/ragged_batch.hpp"
#include "kernels/random_weights.hpp"
#include "kernels/reference/decoder_layer_ref.hpp"

namespace sparksim::kernels {

// Per pass of a round: the drafted token, the distribution it was drawn from over the target's
// vocabulary, the logits it came from (over the drafter's own vocabulary) and the pass's output
// hidden state before the head's norm (what the next pass consumes).
struct ArDraftResult {
  std::vector<int> tokens;      // [gamma] target token ids
  std::vector<double> p_draft;  // [gamma x target vocab]
  std::vector<double> logits;   // [gamma x drafter vocab]
  std::vector<double> hidden;   // [gamma x hidden]
};

// Temperature 0: greedy (p_draft at temperature 1). Otherwise token k is the inverse-CDF draw of
// softmax(logits / temperature) at uniforms[k].
struct ArDraftOptions {
  double temperature = 0.0;
  std::vector<double> uniforms;  // [gamma] when temperature > 0
};

namespace ar_detail {

// Throws std::invalid_argument unless `cache` is one layer of the target's KV heads and the
// positions [0, end) of `slot` fit.
void check_cache(const TransformerShape& s, const KvCacheShape& cache, int slot, int end);
void check_round(const TransformerShape& s, const ArDraftOptions& o, int gamma, int anchor);
// A context update's checks, before any write: the cache (positions [0, start + n) of `slot`), a
// non-negative start and count, every next token in the target's vocabulary. `who` prefixes the
// message.
void check_update(const TransformerShape& s, const KvCacheShape& cache, int slot, int start, int n,
                  const int* next_tokens, const std::string& who);

// The K/V of a round: [cached positions 0..context_len-1 of slot | the passes so far], one layer.
class RoundKv {
 public:
  RoundKv(const TransformerShape& s, const HostKvCache& cache, int slot, int context_len,
          int gamma);
  void append(const double* k, const double* v);
  // Attention of one pass's q [q_width] over every position held so far (its own included).
  void attend(const double* q, double* attn_out) const;

 private:
  const TransformerShape& s_;
  int count_;
  std::vector<float> keys_, values_;
};

// A draft round checked (check_cache, check_round) and its result sized: gamma passes of hidden
// states, of logits over head_vocab, and of target-vocabulary distributions (zero).
ArDraftResult start_round(const TransformerShape& s, const KvCacheShape& cache, int slot,
                          int context_len, const ArDraftOptions& o, int gamma, int anchor,
                          int head_vocab);

// The rest of a pass once its q, k, v are known: K/V appended to the round and attended, the
// layer's output added to x [hidden] (the residual stream), then logits [head_rows] = head ·
// RMSNorm(x; out_norm).
void finish_pass(const LayerWeights& layer, const TransformerShape& s, const LayerQkv& qkv,
                 RoundKv& kv, double* x, const float* out_norm, const float* head, int head_rows,
                 double* logits);

// Writes one position's K/V [kv_width] into layer 0 of the cache (float storage).
void store_kv(HostKvCache& cache, int slot, int position, const double* k, const double* v);

// Picks pass k's token from logits [n] (drafter vocabulary) into p [n] (its distribution):
// argmax (greedy) or the draw at uniforms[k]. Returns the drafter-vocabulary index.
int choose_token(const double* logits, int n, const ArDraftOptions& o, int k, double* p);

}  // namespace ar_detail

}  // namespace sparksim::kernels
