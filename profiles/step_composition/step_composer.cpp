// StepComposer: the composition rules of step_composer.hpp, one function per term.
#include "profiles/step_composition/step_composer.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/input_error.hpp"
#include "profiles/graph_padding.hpp"

namespace sparksim {

namespace {

using Pointer = JsonFile::Pointer;

}  // namespace

DenseTargetShape read_dense_target(const JsonFile& shapes, const std::string& target) {
  const nlohmann::json& targets = shapes.get_object(Pointer("/targets"));
  std::string valid;
  for (const auto& [key, value] : targets.items()) {
    if (key.empty() || key[0] == '_' || !value.is_object() || !value.contains("ffn")) continue;
    valid += (valid.empty() ? "" : ", ") + key;
  }
  if (!targets.contains(target) || !targets.at(target).is_object() ||
      !targets.at(target).contains("ffn")) {
    throw InputError("--target: unknown or not dense: '" + target + "'; valid: " + valid);
  }
  constexpr std::int64_t kMax = std::int64_t{1} << 24;
  DenseTargetShape s;
  static_cast<DenseModelDims&>(s) = read_dense_model_dims(shapes, Pointer("/targets") / target);
  s.name = target;
  s.qk_norm = shapes.get_bool(Pointer("/targets") / target / "qk_norm");
  s.sampled_vocab = s.vocab;
  const Pointer d("/drafters");
  s.mtp1_layers = shapes.get_int(d / "mtp1" / "layers", 1, 64);
  s.eagle3_layers = shapes.get_int(d / "eagle3" / "layers", 1, 64);
  s.dflash_layers = shapes.get_int(d / "dflash" / "layers", 1, 64);
  s.dspark_layers = shapes.get_int(d / "dspark" / "layers", 1, 64);
  s.markov_rank = shapes.get_int(d / "dspark" / "markov_rank", 1, kMax);
  // 0 when the target has no DFlash/DSpark drafter (no target_layer_ids entry).
  const Pointer layer_ids = d / "dspark" / "target_layer_ids" / target;
  s.dflash_context_layers =
      shapes.has(layer_ids) ? static_cast<std::int64_t>(shapes.get_array(layer_ids).size()) : 0;
  return s;
}

DenseTargetShape shard_for_tensor_parallel(const DenseTargetShape& full, std::int64_t tp) {
  if (tp != 1 && tp != 2 && tp != 4 && tp != 8) {
    throw InputError("--tp: " + std::to_string(tp) +
                     " GPUs; the database's all-reduce rows cover tensor parallel 1, 2, 4, 8");
  }
  const auto divide = [&](std::int64_t value, const char* what) {
    if (value % tp != 0) {
      throw InputError("--tp " + std::to_string(tp) + ": " + full.name + "'s " + what + " (" +
                       std::to_string(value) + ") is not divisible by it");
    }
    return value / tp;
  };
  DenseTargetShape s = full;
  s.tensor_parallel = tp;
  s.q_heads = divide(full.q_heads, "query heads");
  s.kv_heads = divide(full.kv_heads, "KV heads");
  s.ffn = divide(full.ffn, "FFN width");
  s.vocab = divide(full.vocab, "vocabulary");  // vLLM's vocabulary-parallel LM head
  return s;
}

void ComposedStep::add(const std::string& name, const KernelLatency& k, double times) {
  terms.push_back({name, k.ms * times});
  total_ms += k.ms * times;
  outside_grid.insert(k.outside_grid.begin(), k.outside_grid.end());
}

void ComposedStep::add_memory_bound(const std::string& name, double ms) {
  terms.push_back({name, ms, false});
  total_ms += ms;
}

double ComposedStep::database_ms() const {
  double ms = 0;
  for (const ComposedTerm& t : terms) ms += t.timed_by_database ? t.ms : 0.0;
  return ms;
}

StepComposer::StepComposer(const KernelDatabase& db, DenseTargetShape shape,
                           std::vector<std::int64_t> graph_buckets, MemoryBoundRates memory_rates)
    : db_(db),
      shape_(std::move(shape)),
      buckets_(std::move(graph_buckets)),
      memory_rates_(memory_rates) {
  if (!(memory_rates_.bytes_per_us > 0) || !(memory_rates_.kernel_us >= 0)) {
    throw std::invalid_argument("StepComposer: memory-bound rates must be positive");
  }
  const std::vector<std::int64_t> lengths = db_.prefill_attention().lengths();
  const std::int64_t longest = lengths.back();
  const double pairs = static_cast<double>(longest) * static_cast<double>(longest + 1) / 2;
  ms_per_pair_ = db_.prefill_attention().latency(1, longest).ms / pairs;
}

std::int64_t StepComposer::pad(std::int64_t tokens) const {
  return pad_to_graph_bucket(buckets_, tokens);
}

KernelLatency StepComposer::layer_gemms(std::int64_t tokens) const {
  const GemmTable& g = db_.gemm();
  const DenseTargetShape& s = shape_;
  const std::int64_t q = s.q_heads * s.head_dim;
  const std::int64_t kv = s.kv_heads * s.head_dim;
  KernelLatency k = g.latency(tokens, q + 2 * kv, s.hidden);  // fused QKV
  k += g.latency(tokens, s.hidden, q);                        // O
  // gate+up: the fused n = 2 ffn is off the grid; two ffn-wide GEMMs do the same work.
  k += g.latency(tokens, s.ffn, s.hidden).scaled(2);
  k += g.latency(tokens, s.hidden, s.ffn);  // down
  return k;
}

KernelLatency StepComposer::tensor_parallel_all_reduces(std::int64_t tokens) const {
  if (shape_.tensor_parallel == 1) return {};
  const AllReduceTable* table = db_.all_reduce();
  if (table == nullptr) {
    throw InputError("--tp " + std::to_string(shape_.tensor_parallel) +
                     ": the database has no comm_custom_allreduce.csv for this GPU");
  }
  // Inside a CUDA graph up to the largest bucket (vLLM captures the step there), eager above.
  const LaunchMode mode =
      !buckets_.empty() && tokens <= buckets_.back() ? LaunchMode::kCudaGraph : LaunchMode::kEager;
  const KernelLatency one = table->latency(shape_.tensor_parallel, tokens * shape_.hidden, mode);
  return one.scaled(static_cast<double>(2 * shape_.layers + 1));
}

double StepComposer::layer_memory_bound_ms(std::int64_t tokens) const {
  const DenseTargetShape& s = shape_;
  const NonGemmLayerWidths widths{static_cast<double>(s.hidden),
                                  static_cast<double>(s.q_heads * s.head_dim),
                                  static_cast<double>(s.kv_heads * s.head_dim),
                                  static_cast<double>(s.head_dim),
                                  static_cast<double>(s.ffn),
                                  s.qk_norm,
                                  kv_cache_element_bytes(db_.kv_cache_dtype())};
  double us = 0;
  for (const MemoryBoundKernel& k : layer_non_gemm_kernels(widths)) {
    us += memory_bound_us(k, static_cast<double>(tokens), memory_rates_);
  }
  return us * 1e-3;
}

double StepComposer::forward_memory_bound_ms(std::int64_t tokens) const {
  const double t = static_cast<double>(tokens);
  const double hidden = static_cast<double>(shape_.hidden);
  const double around_layers_us = memory_bound_us(embedding_gather(hidden), t, memory_rates_) +
                                  memory_bound_us(residual_rms_norm(hidden), t, memory_rates_);
  return layer_memory_bound_ms(tokens) * static_cast<double>(shape_.layers) +
         around_layers_us * 1e-3;
}

double StepComposer::logits_and_sampling_ms(std::int64_t rows, std::int64_t vocab) const {
  if (rows <= 0) return 0;
  const double r = static_cast<double>(rows);
  const double v = static_cast<double>(vocab);
  return (memory_bound_us(logits_softmax(v), r, memory_rates_) +
          memory_bound_us(sampler(v), r, memory_rates_)) *
         1e-3;
}

KernelLatency StepComposer::dense_forward(std::int64_t tokens) const {
  KernelLatency k = layer_gemms(tokens).scaled(static_cast<double>(shape_.layers));
  k += tensor_parallel_all_reduces(tokens);
  k.ms += forward_memory_bound_ms(tokens);
  return k;
}

KernelLatency StepComposer::head(std::int64_t rows) const {
  KernelLatency k = lm_head(rows, shape_.vocab);
  k.ms += logits_and_sampling_ms(rows, shape_.sampled_vocab);
  return k;
}

KernelLatency StepComposer::lm_head(std::int64_t rows, std::int64_t vocab) const {
  return db_.bf16_gemm().latency(rows, vocab, shape_.hidden);  // bf16 in FP8 checkpoints too
}

KernelLatency StepComposer::verify_attention(std::int64_t requests, std::int64_t width,
                                             std::int64_t context) const {
  KernelLatency k =
      db_.decode_attention().latency(requests, std::max<std::int64_t>(0, context - 1));
  const double compute_ms = ms_per_pair_ * static_cast<double>(requests) *
                            static_cast<double>(width) * static_cast<double>(context);
  k.ms = std::max(k.ms, compute_ms);
  return k;
}

KernelLatency StepComposer::prefill_attention(std::int64_t tokens, std::int64_t cached) const {
  KernelLatency k = db_.prefill_attention().latency(1, tokens);
  k.ms += ms_per_pair_ * static_cast<double>(tokens) * static_cast<double>(cached);
  return k;
}

ComposedStep StepComposer::step(const StepShape& s) const {
  ComposedStep out;
  const std::int64_t verify = s.requests * s.verify_width;
  const std::int64_t tokens = verify + s.prefill_tokens;
  if (tokens <= 0) return out;
  const double layers = static_cast<double>(shape_.layers);
  out.add("layer GEMMs (QKV, O, gate+up, down) x " + std::to_string(shape_.layers),
          layer_gemms(pad(tokens)), layers);
  if (shape_.tensor_parallel > 1) {
    out.add("TP all-reduces (2 x " + std::to_string(shape_.layers) + " + embedding)",
            tensor_parallel_all_reduces(pad(tokens)));
  }
  out.add_memory_bound("norms, RoPE, KV append, SiLU*mul x " + std::to_string(shape_.layers) +
                           " + embedding + final norm",
                       forward_memory_bound_ms(pad(tokens)));
  const std::int64_t head_rows = verify + (s.prefill_tokens > 0 ? 1 : 0);
  out.add("LM head (" + std::to_string(head_rows) + " rows)", lm_head(head_rows, shape_.vocab));
  out.add_memory_bound("logits processing + sampling (" + std::to_string(head_rows) + " rows x " +
                           std::to_string(shape_.sampled_vocab) + " vocab)",
                       logits_and_sampling_ms(head_rows, shape_.sampled_vocab));
  if (s.requests > 0) {
    out.add("decode attention x " + std::to_string(shape_.layers),
            verify_attention(s.requests, s.verify_width, s.context), layers);
  }
  if (s.prefill_tokens > 0) {
    out.add("prefill attention x " + std::to_string(shape_.layers),
            prefill_attention(s.prefill_tokens, s.prefill_cached), layers);
  }
  return out;
}

ComposedStep StepComposer::draft(const DrafterSpec& drafter, std::int64_t requests,
                                 std::int64_t context) const {
  ComposedStep out;
  if (requests <= 0) return out;
  const GemmTable& g = db_.gemm();
  const DenseTargetShape& s = shape_;
  const std::int64_t gamma = drafter.gamma;
  const auto layers = [&](std::int64_t count, std::int64_t tokens, std::int64_t width,
                          const std::string& what) {
    out.add(what + " layer GEMMs x " + std::to_string(count), layer_gemms(pad(tokens)),
            static_cast<double>(count));
    out.add_memory_bound(what + " norms, RoPE, KV append, SiLU*mul x " + std::to_string(count),
                         layer_memory_bound_ms(pad(tokens)) * static_cast<double>(count));
    if (s.tensor_parallel > 1) {
      // Two all-reduces per drafter layer, as in the target (the tables' 2 x layers + 1 rule
      // counted per layer: the drafter shares the target's embedding pass).
      const KernelLatency per_forward = tensor_parallel_all_reduces(pad(tokens));
      out.add(what + " TP all-reduces x " + std::to_string(2 * count),
              per_forward.scaled(static_cast<double>(2 * count) /
                                 static_cast<double>(2 * s.layers + 1)));
    }
    out.add(what + " attention x " + std::to_string(count),
            verify_attention(requests, width, context), static_cast<double>(count));
  };
  switch (drafter.family) {
    case DrafterFamily::kMtp1:
      // DeepSeek-V3 MTP: a 2h -> h projection, one decoder layer, the shared LM head.
      out.add("fc 2h->h", g.latency(pad(requests), s.hidden, 2 * s.hidden));
      layers(s.mtp1_layers, requests, 1, "mtp1");
      out.add("LM head", lm_head(requests, s.vocab));
      out.add_memory_bound("logits processing + sampling",
                           logits_and_sampling_ms(requests, s.sampled_vocab));
      break;
    case DrafterFamily::kEagle3:
      // A 3h -> h fusion once, then γ sequential passes of one layer and a reduced-vocab head.
      out.add("fc 3h->h", g.latency(pad(requests), s.hidden, 3 * s.hidden));
      for (std::int64_t i = 0; i < gamma; ++i) {
        layers(s.eagle3_layers, requests, 1, "eagle3 pass");
        out.add("draft head (" + std::to_string(s.eagle3_draft_vocab) + " vocab)",
                lm_head(requests, s.eagle3_draft_vocab));
        out.add_memory_bound("draft logits processing + sampling",
                             logits_and_sampling_ms(requests, s.eagle3_draft_vocab));
      }
      break;
    case DrafterFamily::kDflash:
    case DrafterFamily::kDspark: {
      // Context projection of the chosen target layers, then one parallel pass over R·γ block
      // positions; dspark adds γ sequential Markov steps (rank -> vocab GEMM) over R rows.
      const std::int64_t block = requests * gamma;
      out.add("context projection",
              g.latency(pad(requests), s.hidden, s.dflash_context_layers * s.hidden));
      const bool spark = drafter.family == DrafterFamily::kDspark;
      layers(spark ? s.dspark_layers : s.dflash_layers, block, gamma, spark ? "dspark" : "dflash");
      out.add("LM head (block)", lm_head(block, s.vocab));
      out.add_memory_bound("block logits processing + sampling",
                           logits_and_sampling_ms(block, s.sampled_vocab));
      if (spark) {
        out.add("Markov rank->vocab GEMM x " + std::to_string(gamma),
                g.latency(requests, s.vocab, s.markov_rank), static_cast<double>(gamma));
      }
      break;
    }
    case DrafterFamily::kNone:
      break;  // no speculation: nothing is drafted
  }
  return out;
}

}  // namespace sparksim
