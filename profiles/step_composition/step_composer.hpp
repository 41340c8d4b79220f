// StepComposer: step times of a dense Qwen3-style target (and its drafters) composed from a
// measured kernel-latency database, term by term. Rules (profiles/step_composition/README.md):
//  - per layer: QKV (n = (q + 2 kv) heads x head_dim, k = hidden), O (n = hidden, k = q x
//    head_dim), gate+up as 2 x the single (n = ffn, k = hidden) GEMM, down (n = hidden, k = ffn),
//    all at m = the step's tokens padded to the CUDA-graph bucket; times the layer count;
//  - LM head (n = vocab, k = hidden) on the verified rows only, plus one row per prefill chunk;
//  - decode/verify attention: the decode row at (R requests, step = L - 1) per layer; a verify of
//    W tokens per request costs max(that, R x W x L pairs at the prefill table's per-pair rate);
//  - a prefill chunk of N tokens after P cached: the prefill row (1, N) plus N x P pairs at the
//    per-pair rate;
//  - tensor parallel N > 1 (shape.tensor_parallel): every GEMM and attention call is one GPU's
//    shard (heads, ffn and the vocabulary-parallel LM head divided by N) and each layer adds two
//    all-reduces of tokens x hidden bf16 values (after O and after down), plus one for the
//    vocabulary-parallel embedding, from comm_custom_allreduce.csv (CUDA-graph rows for a padded
//    step, eager rows above the largest bucket);
//  - the memory-bound operations the database does not time (non_gemm_ops.hpp), from the bytes
//    they move at the GPU's measured copy bandwidth plus one kernel cost each: per layer the two
//    RMSNorm + residual adds, Qwen3's q/k norms, RoPE, the KV-cache append and SiLU·mul at the
//    padded token count (one GPU's shard widths), the embedding gather and the final norm; and
//    per verified row the logits processing + sampling over the WHOLE vocabulary (vLLM gathers
//    the vocabulary-parallel logits before sampling, so one GPU samples the full row);
//  - no host time.
// Its database-timed terms reproduce the worked Qwen3-8B example of the database's README (tested
// within 1%); the memory-bound terms are named separately (ComposedTerm::timed_by_database).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/json_file.hpp"
#include "profiles/dense_model_dims.hpp"
#include "profiles/drafter.hpp"
#include "profiles/kernel_db/kernel_database.hpp"
#include "profiles/non_gemm_ops.hpp"

namespace sparksim {

struct DenseTargetShape : DenseModelDims {
  std::string name;
  // GPUs one replica's layers are split over (Megatron tensor parallelism). After
  // shard_for_tensor_parallel, q_heads, kv_heads, ffn and vocab are one GPU's share.
  std::int64_t tensor_parallel = 1;
  bool qk_norm = false;  // Qwen3's per-head q and k RMSNorms
  // The whole vocabulary, which sampling reads on one GPU whatever the sharding.
  std::int64_t sampled_vocab = 0;
  // Drafter shapes (model_shapes.json's drafters): layers, Markov rank, dflash context layers.
  std::int64_t mtp1_layers = 1, eagle3_layers = 1, dflash_layers = 5, dspark_layers = 5;
  std::int64_t markov_rank = 256, dflash_context_layers = 5, eagle3_draft_vocab = 32000;
};

// Reads a dense target of model_shapes.json; InputError naming the valid targets otherwise.
DenseTargetShape read_dense_target(const JsonFile& shapes, const std::string& target);

// One GPU's shard of `full` at `tp`-way tensor parallelism: q_heads, kv_heads, ffn and vocab
// divided by tp. InputError when tp is not 1, 2, 4 or 8, or does not divide them (KV heads
// would have to be replicated, which the database's head configurations do not cover).
DenseTargetShape shard_for_tensor_parallel(const DenseTargetShape& full, std::int64_t tp);

// One step's shape: R requests verifying W tokens each (anchor included) at L KV entries read
// by the anchor, plus an optional prefill chunk of N tokens after P cached prompt tokens.
struct StepShape {
  std::int64_t requests = 0;
  std::int64_t verify_width = 1;
  std::int64_t context = 0;
  std::int64_t prefill_tokens = 0;
  std::int64_t prefill_cached = 0;
};

struct ComposedTerm {
  std::string name;  // "gemm layers (36 x QKV+O+gate_up+down)", "lm head", ...
  double ms = 0;
  bool timed_by_database = true;  // false: a memory-bound term composed from bytes moved
};

struct ComposedStep {
  std::vector<ComposedTerm> terms;
  double total_ms = 0;
  std::set<std::string> outside_grid;  // every extrapolation used
  void add(const std::string& name, const KernelLatency& k, double times = 1);
  void add_memory_bound(const std::string& name, double ms);
  // The terms the database times (GEMMs, attention, all-reduces): the README's composition.
  double database_ms() const;
};

class StepComposer {
 public:
  // `memory_rates`: what the memory-bound operations run at (memory_bound_rates() of the GPU).
  StepComposer(const KernelDatabase& db, DenseTargetShape shape,
               std::vector<std::int64_t> graph_buckets, MemoryBoundRates memory_rates);

  std::int64_t pad(std::int64_t tokens) const;
  // One decoder layer's GEMMs of `width`-hidden layers at m tokens (target shape).
  KernelLatency layer_gemms(std::int64_t tokens) const;
  KernelLatency lm_head(std::int64_t rows, std::int64_t vocab) const;
  // The tensor-parallel all-reduces of one forward over `tokens` (already padded): 2 per layer
  // plus the embedding's, tokens x hidden bf16 elements each; zero at tp 1.
  KernelLatency tensor_parallel_all_reduces(std::int64_t tokens) const;
  // One decoder layer's memory-bound operations at `tokens` (already padded), ms.
  double layer_memory_bound_ms(std::int64_t tokens) const;
  // Every layer's plus the embedding gather and the final norm at `tokens`, ms.
  double forward_memory_bound_ms(std::int64_t tokens) const;
  // Logits processing + sampling of `rows` rows over `vocab` entries, ms.
  double logits_and_sampling_ms(std::int64_t rows, std::int64_t vocab) const;
  // Every layer's GEMMs, the all-reduces and the memory-bound operations at `tokens` (already
  // padded): the dense table.
  KernelLatency dense_forward(std::int64_t tokens) const;
  // The LM head on `rows` rows plus their logits processing and sampling: the head table.
  KernelLatency head(std::int64_t rows) const;
  KernelLatency verify_attention(std::int64_t requests, std::int64_t width,
                                 std::int64_t context) const;                       // one layer
  KernelLatency prefill_attention(std::int64_t tokens, std::int64_t cached) const;  // one layer
  double prefill_ms_per_pair() const { return ms_per_pair_; }

  ComposedStep step(const StepShape& s) const;
  // Draft step of R requests at context L (the drafter's own KV read) for a drafter spec.
  ComposedStep draft(const DrafterSpec& drafter, std::int64_t requests, std::int64_t context) const;

  const DenseTargetShape& shape() const { return shape_; }
  const KernelDatabase& database() const { return db_; }

 private:
  const KernelDatabase& db_;
  DenseTargetShape shape_;
  std::vector<std::int64_t> buckets_;
  MemoryBoundRates memory_rates_;
  double ms_per_pair_ = 0;  // the prefill table's rate at its longest single-request prompt
};

}  // namespace sparksim
