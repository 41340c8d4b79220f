// The roofline generator. A forward pass is a list of kernels, each described by the bytes it
// streams (weights once, activations per token) and its FLOPs per token; a kernel takes
// max(bytes / bandwidth, FLOPs / GEMM rate) + a fixed per-kernel overhead. The verify table
// evaluates that exactly at each tabulated token count; drafters use its linear form (see below).
#include "profiles/analytic_profile.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "common/input_error.hpp"
#include "profiles/decimal_rounding.hpp"
#include "profiles/dense_model_dims.hpp"
#include "profiles/non_gemm_ops.hpp"

namespace sparksim {

namespace {

using Pointer = JsonFile::Pointer;

constexpr double kBf16Bytes = 2;
constexpr double kFp32Bytes = 4;

struct DenseShape : DenseModelDims {
  bool tied_embeddings = false;
  bool qk_norm = false;
};

// Rates in bytes and FLOPs per microsecond, so kernel times come out in microseconds.
struct Hardware {
  double bytes_per_us = 0;
  double gemm_flops_per_us = 0;
  double attention_flops_per_us = 0;
  double kernel_overhead_us = 0;
};

struct Kernel {
  double weight_bytes = 0;     // read once per launch, whatever the token count
  double bytes_per_token = 0;  // activations read and written
  double flops_per_token = 0;  // 0 for memory-bound elementwise kernels
};

Kernel gemm(double in, double out) {
  return {in * out * kBf16Bytes, (in + out) * kBf16Bytes, 2 * in * out};
}
Kernel elementwise(double bytes_per_token, double weight_bytes = 0) {
  return {weight_bytes, bytes_per_token, 0};
}
// The per-token operations shared with the measured-db composer (non_gemm_ops.hpp).
Kernel elementwise(const MemoryBoundKernel& k) {
  return {k.weight_bytes, k.bytes_per_token, 0};
}

// Exact roofline of one launch over `tokens` tokens.
double kernel_us(const Kernel& k, double tokens, const Hardware& hw) {
  const double memory = (k.weight_bytes + k.bytes_per_token * tokens) / hw.bytes_per_us;
  const double compute = k.flops_per_token * tokens / hw.gemm_flops_per_us;
  return std::max(memory, compute) + hw.kernel_overhead_us;
}

// The schema's draft model is linear in tokens, so drafters use the roofline's linear form:
// per launch = overhead + weights / bandwidth, per token = activations / bandwidth + FLOPs / rate.
// Summing instead of taking the max is exact far from a GEMM's balance point and at most 2x too
// slow at it (about 150-210 tokens on these GPUs); it never underestimates.
struct LinearCost {
  double per_launch_us = 0;
  double per_token_ns = 0;
  LinearCost& operator+=(const LinearCost& o) {
    per_launch_us += o.per_launch_us;
    per_token_ns += o.per_token_ns;
    return *this;
  }
};

LinearCost linear_cost(const std::vector<Kernel>& kernels, const Hardware& hw) {
  LinearCost c;
  for (const Kernel& k : kernels) {
    c.per_launch_us += hw.kernel_overhead_us + k.weight_bytes / hw.bytes_per_us;
    c.per_token_ns +=
        1e3 * (k.bytes_per_token / hw.bytes_per_us + k.flops_per_token / hw.gemm_flops_per_us);
  }
  return c;
}

void append(std::vector<Kernel>& to, const std::vector<Kernel>& from, std::int64_t times = 1) {
  for (std::int64_t i = 0; i < times; ++i) to.insert(to.end(), from.begin(), from.end());
}

// One Qwen3 decoder layer as vLLM runs it: 12 kernels with q/k norms. The attention kernel's
// K/V reads and score FLOPs are not here: the time model charges them per context token and per
// (query, context) pair.
std::vector<Kernel> decoder_layer(const DenseShape& s) {
  const double h = static_cast<double>(s.hidden);
  const double qd = static_cast<double>(s.q_heads * s.head_dim);
  const double kd = static_cast<double>(s.kv_heads * s.head_dim);
  const double ffn = static_cast<double>(s.ffn);
  const double hd = static_cast<double>(s.head_dim);
  std::vector<Kernel> k;
  k.push_back(elementwise(residual_rms_norm(h)));  // RMSNorm fused with residual add
  k.push_back(gemm(h, qd + 2 * kd));               // fused QKV projection
  if (s.qk_norm) {
    k.push_back(elementwise(head_rms_norm(qd, hd)));  // per-head q RMSNorm
    k.push_back(elementwise(head_rms_norm(kd, hd)));  // per-head k RMSNorm
  }
  k.push_back(elementwise(rotary_embedding(qd, kd)));   // RoPE on q and k
  k.push_back(elementwise(kv_cache_append(kd)));        // new K/V into the paged cache
  k.push_back(elementwise(attention_activations(qd)));  // attention: q in, output out
  k.push_back(gemm(qd, h));                             // o_proj
  k.push_back(elementwise(residual_rms_norm(h)));       // post-attention RMSNorm + add
  k.push_back(gemm(h, 2 * ffn));                        // fused gate_up
  k.push_back(elementwise(silu_mul(ffn)));              // SiLU(gate) * up
  k.push_back(gemm(ffn, h));                            // down_proj
  return k;
}

// LM head over `vocab` and the sampler behind it: a softmax writing fp32 probabilities, and the
// accept/sample pass reading them.
std::vector<Kernel> head_and_sampler(const DenseShape& s, double vocab) {
  const double h = static_cast<double>(s.hidden);
  return {elementwise(residual_rms_norm(h)),  // final RMSNorm fused with add
          gemm(h, vocab), elementwise(logits_softmax(vocab)), elementwise(sampler(vocab))};
}

Kernel embedding_gather(const DenseShape& s) {
  return elementwise(sparksim::embedding_gather(static_cast<double>(s.hidden)));
}

double parameter_count(const DenseShape& s) {
  const double h = static_cast<double>(s.hidden);
  const double qd = static_cast<double>(s.q_heads * s.head_dim);
  const double kd = static_cast<double>(s.kv_heads * s.head_dim);
  const double hd = static_cast<double>(s.head_dim);
  const double ffn = static_cast<double>(s.ffn);
  const double attention = h * qd + 2 * h * kd + qd * h;
  const double mlp = 3 * h * ffn;
  const double norms = 2 * h + (s.qk_norm ? 2 * hd : 0);
  const double embedding = static_cast<double>(s.vocab) * h;
  return static_cast<double>(s.layers) * (attention + mlp + norms) + h /* final norm */ +
         embedding * (s.tied_embeddings ? 1 : 2);
}

double kv_bytes_per_token(const DenseShape& s, std::int64_t layers) {
  return static_cast<double>(layers) * 2 * static_cast<double>(s.kv_heads * s.head_dim) *
         kBf16Bytes;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string gpu_key(const JsonFile& shapes, const std::string& gpu) {
  const nlohmann::json& gpus = shapes.get_object(Pointer("/gpus"));
  for (const auto& [key, value] : gpus.items()) {
    if (key.empty() || key[0] == '_') continue;
    if (key == gpu || key.substr(0, key.find('-')) == gpu) return key;
  }
  throw InputError("--gpu: unknown GPU '" + gpu + "'; valid: " + join(analytic_gpu_names(shapes)));
}

DenseShape read_target(const JsonFile& shapes, const std::string& target) {
  const auto valid = analytic_target_names(shapes);
  if (std::find(valid.begin(), valid.end(), target) == valid.end()) {
    throw InputError("--target: unknown or unsupported target '" + target +
                     "'; valid: " + join(valid));
  }
  const Pointer t = Pointer("/targets") / target;
  DenseShape s;
  static_cast<DenseModelDims&>(s) = read_dense_model_dims(shapes, t);
  s.tied_embeddings = shapes.get_bool(t / "tied_embeddings");
  s.qk_norm = shapes.get_bool(t / "qk_norm");
  return s;
}

// Dense token counts to tabulate: every graph bucket (padded batches land exactly on a point)
// plus powers of two up to max_dense_tokens. Above the largest bucket every kernel is past its
// balance point, so the roofline is linear there and interpolation between the points is exact.
std::vector<std::int64_t> dense_token_points(const std::vector<std::int64_t>& buckets,
                                             std::int64_t max_tokens) {
  std::set<std::int64_t> points(buckets.begin(), buckets.end());
  for (std::int64_t t = 1; t <= max_tokens; t *= 2) points.insert(t);
  return {points.begin(), points.end()};
}

}  // namespace

std::vector<std::string> analytic_gpu_names(const JsonFile& shapes) {
  std::vector<std::string> names;
  for (const auto& [key, value] : shapes.get_object(Pointer("/gpus")).items()) {
    if (!key.empty() && key[0] != '_') names.push_back(key);
  }
  return names;
}

std::vector<std::string> analytic_target_names(const JsonFile& shapes) {
  std::vector<std::string> names;
  for (const auto& [key, value] : shapes.get_object(Pointer("/targets")).items()) {
    // Dense decoders have an "ffn" width; mixture-of-experts entries do not.
    if (value.is_object() && value.contains("ffn")) names.push_back(key);
  }
  return names;
}

MemoryBoundRates memory_bound_rates(const JsonFile& shapes, const std::string& gpu,
                                    const RooflineConstants& c) {
  const Pointer g = Pointer("/gpus") / gpu_key(shapes, gpu);
  const double copy_tb_s =
      shapes.get_number(g / "copy_tb_s_measured_read_plus_write", NumberRange::positive());
  return {copy_tb_s * 1e12 * c.bandwidth_efficiency * 1e-6, c.kernel_overhead_us};
}

Profile make_analytic_profile(const nlohmann::json& shapes, const std::string& gpu,
                              const std::string& target, const std::string& date,
                              const std::string& git_sha, const RooflineConstants& c) {
  return make_analytic_profile(JsonFile::from_json(shapes, "<model shapes>"), gpu, target, date,
                               git_sha, c);
}

Profile make_analytic_profile(const JsonFile& shapes, const std::string& gpu,
                              const std::string& target, const std::string& date,
                              const std::string& git_sha, const RooflineConstants& c) {
  return finish_profile(make_analytic_draft(shapes, gpu, target, date, git_sha, c));
}

ProfileDraft make_analytic_draft(const JsonFile& shapes, const std::string& gpu,
                                 const std::string& target, const std::string& date,
                                 const std::string& git_sha, const RooflineConstants& c) {
  const std::string gpu_name = gpu_key(shapes, gpu);
  const DenseShape s = read_target(shapes, target);
  const Pointer g = Pointer("/gpus") / gpu_name;
  const double hbm_gb = shapes.get_number(g / "hbm_gb", NumberRange::positive());
  const double copy_tb_s =
      shapes.get_number(g / "copy_tb_s_measured_read_plus_write", NumberRange::positive());
  const double gemm_tflops =
      shapes.get_number(g / "bf16_gemm_tflops_measured", NumberRange::positive());
  const Pointer d("/drafters");
  const std::int64_t dflash_layers = shapes.get_int(d / "dflash" / "layers", 1, 64);
  const std::int64_t dspark_layers = shapes.get_int(d / "dspark" / "layers", 1, 64);
  const std::int64_t eagle3_layers = shapes.get_int(d / "eagle3" / "layers", 1, 64);
  const std::int64_t mtp1_layers = shapes.get_int(d / "mtp1" / "layers", 1, 64);
  const std::int64_t markov_rank = shapes.get_int(d / "dspark" / "markov_rank", 1, 1 << 20);
  // DFlash/DSpark read chosen target layers; a target without them has no such drafter (0).
  const Pointer layer_ids = d / "dspark" / "target_layer_ids" / target;
  const std::int64_t context_layers =
      shapes.has(layer_ids) ? static_cast<std::int64_t>(shapes.get_array(layer_ids).size()) : 0;

  Hardware hw;
  const MemoryBoundRates memory_rates = memory_bound_rates(shapes, gpu_name, c);
  hw.bytes_per_us = memory_rates.bytes_per_us;
  hw.gemm_flops_per_us = gemm_tflops * 1e12 * c.gemm_efficiency * 1e-6;
  hw.attention_flops_per_us = gemm_tflops * 1e12 * c.attention_efficiency * 1e-6;
  hw.kernel_overhead_us = memory_rates.kernel_us;

  ProfileDraft draft;
  // A roofline's context rates mean no more than four decimals of a nanosecond. Its step constant
  // is a given (RooflineConstants), stored as given: recalibrate-analytic's finite differences
  // move it by less than any stored decimal.
  draft.precision.kv_read_ns = 4;
  draft.precision.attention_ns_per_pair = 4;
  draft.precision.verify_fixed_us = kAsComputed;
  Profile& p = draft.profile;
  p.target = target;
  p.gpus = 1;
  p.hbm_bytes = hbm_gb * c.bytes_per_gb;
  p.weights_bytes = parameter_count(s) * kBf16Bytes;
  p.memory_utilization = c.memory_utilization;
  p.kv_bytes_per_token = kv_bytes_per_token(s, s.layers);
  p.host_overhead_us = c.host_overhead_us;

  // Verify: the target's whole forward at T tokens.
  const double vocab = static_cast<double>(s.vocab);
  std::vector<Kernel> forward{embedding_gather(s)};
  append(forward, decoder_layer(s), s.layers);
  append(forward, head_and_sampler(s, vocab));
  VerifyTimeModel& v = p.verify;
  v.fixed_us = c.step_fixed_us;
  v.graph_buckets = vllm_graph_buckets(c.max_graph_bucket);
  v.dense_tokens = dense_token_points(v.graph_buckets, c.max_dense_tokens);
  for (std::int64_t t : v.dense_tokens) {
    double us = 0;
    for (const Kernel& k : forward) us += kernel_us(k, static_cast<double>(t), hw);
    v.dense_us.push_back(us);
  }
  v.kv_read_ns_per_context_token = 1e3 * p.kv_bytes_per_token / hw.bytes_per_us;
  const double flops_per_pair = 4.0 * static_cast<double>(s.q_heads * s.head_dim * s.layers);
  v.attention_ns_per_pair = 1e3 * flops_per_pair / hw.attention_flops_per_us;

  // Drafters: decoder layers of the target's width (model_shapes.json's drafter notes).
  const double h = static_cast<double>(s.hidden);
  const auto layer_kv_ns = [&](std::int64_t layers) {
    return 1e3 * kv_bytes_per_token(s, layers) / hw.bytes_per_us;
  };

  // mtp1: DeepSeek-V3's MTP module: norms of the target hidden state and the next token's
  // embedding, a 2h -> h projection, one decoder layer, the shared head; R tokens, one pass.
  {
    std::vector<Kernel> pass{embedding_gather(s), elementwise(2 * h * kBf16Bytes),
                             elementwise(2 * h * kBf16Bytes), gemm(2 * h, h)};
    append(pass, decoder_layer(s), mtp1_layers);
    append(pass, head_and_sampler(s, vocab));
    const LinearCost cost = linear_cost(pass, hw);
    DraftTimeModel& m = p.draft[static_cast<int>(DrafterFamily::kMtp1)].emplace();
    m = {0, cost.per_launch_us, cost.per_token_ns, false, false, layer_kv_ns(mtp1_layers), false};
  }
  // eagle3: a 3h -> h fusion of target features once per step, then γ sequential passes of one
  // layer and a reduced-vocabulary head over R tokens; every pass re-reads its KV cache.
  {
    const LinearCost fuse = linear_cost({gemm(3 * h, h)}, hw);
    std::vector<Kernel> pass{embedding_gather(s)};
    append(pass, decoder_layer(s), eagle3_layers);
    append(pass, head_and_sampler(s, static_cast<double>(c.eagle3_draft_vocab)));
    const LinearCost cost = linear_cost(pass, hw);
    DraftTimeModel& m = p.draft[static_cast<int>(DrafterFamily::kEagle3)].emplace();
    // The fusion's per-token cost is charged on all R·γ tokens: a small overestimate (R tokens).
    m = {fuse.per_launch_us,
         cost.per_launch_us,
         cost.per_token_ns + fuse.per_token_ns,
         true,
         true,
         layer_kv_ns(eagle3_layers),
         true};
  }
  // dflash: project the target's hidden states of the chosen layers (k·h -> h, RMSNorm) once per
  // step, then one parallel pass of its layers and the shared head over R·γ block positions.
  LinearCost dflash_fixed;
  LinearCost dflash_pass;
  {
    dflash_fixed = linear_cost({gemm(static_cast<double>(context_layers) * h, h),
                                elementwise(2 * h * kBf16Bytes, h * kBf16Bytes)},
                               hw);
    std::vector<Kernel> pass{embedding_gather(s)};
    append(pass, decoder_layer(s), dflash_layers);
    append(pass, head_and_sampler(s, vocab));
    dflash_pass = linear_cost(pass, hw);
    DraftTimeModel& m = p.draft[static_cast<int>(DrafterFamily::kDflash)].emplace();
    // The projection's per-token cost is charged on the R·γ block tokens, standing in for the
    // tokens accepted since the last step (up to γ + 1 per request).
    m = {dflash_fixed.per_launch_us,
         dflash_pass.per_launch_us,
         dflash_pass.per_token_ns + dflash_fixed.per_token_ns,
         false,
         true,
         layer_kv_ns(dflash_layers),
         false};
  }
  // dspark: the dflash backbone (its one pass moves into fixed_us) plus the Markov head's
  // left-to-right loop, γ sequential passes over R tokens: the bias row gather, the rank -> vocab
  // GEMM, bias add with softmax, sampling, and the confidence head. The roofline sets the pass's
  // R-independent part; its per-token part is pinned so that one position at batch 128 costs
  // markov_us_per_position (DSpark paper, Figure 4).
  {
    const double rank = static_cast<double>(markov_rank);
    const LinearCost markov =
        linear_cost({elementwise(2 * rank * kBf16Bytes), gemm(rank, vocab),
                     elementwise(vocab * (kFp32Bytes + kFp32Bytes + kFp32Bytes)),
                     elementwise(vocab * kFp32Bytes), gemm(h + rank, 1)},
                    hw);
    const double calibration_requests = static_cast<double>(c.markov_calibration_requests);
    const double markov_per_token_ns = std::max(
        0.0, 1e3 * (c.markov_us_per_position - markov.per_launch_us) / calibration_requests);
    const double markov_pass_us =
        c.markov_us_per_position - markov_per_token_ns * calibration_requests * 1e-3;
    DraftTimeModel& m = p.draft[static_cast<int>(DrafterFamily::kDspark)].emplace();
    m = {dflash_fixed.per_launch_us + dflash_pass.per_launch_us,
         markov_pass_us,
         dflash_pass.per_token_ns + dflash_fixed.per_token_ns + markov_per_token_ns,
         true,
         true,
         layer_kv_ns(dspark_layers),
         false};
  }

  if (context_layers == 0) {
    // No published DFlash/DSpark drafter for this target: no cost, so none is simulated.
    p.draft[static_cast<int>(DrafterFamily::kDflash)].reset();
    p.draft[static_cast<int>(DrafterFamily::kDspark)].reset();
  }

  p.provenance.source = "analytic";
  p.provenance.gpu = gpu_name;
  p.provenance.date = date;
  p.provenance.tool = kAnalyticTool;
  p.provenance.git_sha = git_sha;
  p.provenance.notes =
      "ANALYTIC roofline estimate, not a measurement. Kernel time = max(bytes / (" +
      format_fixed(c.bandwidth_efficiency, 2) + " x " + format_fixed(copy_tb_s, 2) +
      " TB/s measured copy), FLOPs / (" + format_fixed(c.gemm_efficiency, 2) + " x " +
      format_fixed(gemm_tflops, 0) + " TFLOP/s measured bf16 GEMM)) + " +
      format_fixed(c.kernel_overhead_us, 1) + " us per kernel; attention FLOPs at " +
      format_fixed(c.attention_efficiency, 2) + " x the GEMM rate; vLLM CUDA-graph buckets to " +
      std::to_string(c.max_graph_bucket) + "; host overhead " +
      format_fixed(c.host_overhead_us, 0) + " us (assumed); dspark Markov loop pinned to " +
      format_fixed(c.markov_us_per_position, 0) + " us per position at batch " +
      std::to_string(c.markov_calibration_requests) +
      " (DSpark paper Fig. 4). HBM in decimal GB. See profiles/README.md.";
  return draft;
}

}  // namespace sparksim
