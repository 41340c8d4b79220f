// The measured-db generator (see the header): tables from the GEMM rows, fits for the rest.
#include "profiles/step_composition/measured_db_profile.hpp"

#include <cmath>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "common/input_error.hpp"
#include "profiles/analytic_profile.hpp"
#include "profiles/decimal_rounding.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {

namespace {

// Token counts of the dense and head tables: every graph bucket (padded steps land on a point),
// then the GEMM table's own m grid beyond the last bucket, its m + 1 points included (512, 513,
// 768, 769, ... 4352, 4353, 8192, 16384, 32768): cuBLAS changes tiles between m and m + 1, so
// without them a step just past a grid point (8 decode rows beside a 1024-token chunk) would be
// interpolated from the cheap side of the step (-21% before this rule).
std::vector<std::int64_t> table_tokens(const std::vector<std::int64_t>& buckets) {
  std::set<std::int64_t> t(buckets.begin(), buckets.end());
  for (std::int64_t m = 512; m <= 4352; m += 256) {
    t.insert(m);
    t.insert(m + 1);
  }
  for (std::int64_t m : {8192, 16384, 32768}) t.insert(m);
  return {t.begin(), t.end()};
}

// The least-squares non-decreasing sequence to y (pool adjacent violators): measured GEMM rows
// are not monotone in m (H100 Qwen3-14B: 64 rows slower than 96), the profile's tables must be
// ("more tokens never cost less"), and pooling splits the difference where lifting every dip to
// its predecessor over-predicted the cheaper shapes by up to 10%.
std::vector<double> nondecreasing_fit(const std::vector<double>& y) {
  std::vector<double> value;
  std::vector<std::size_t> count;
  for (double x : y) {
    value.push_back(x);
    count.push_back(1);
    while (value.size() > 1 && value[value.size() - 2] > value.back()) {
      const std::size_t n = count[count.size() - 2] + count.back();
      const double v = (value[value.size() - 2] * static_cast<double>(count[count.size() - 2]) +
                        value.back() * static_cast<double>(count.back())) /
                       static_cast<double>(n);
      value.pop_back();
      count.pop_back();
      value.back() = v;
      count.back() = n;
    }
  }
  std::vector<double> out;
  for (std::size_t i = 0; i < value.size(); ++i) out.insert(out.end(), count[i], value[i]);
  return out;
}

// What the notes say about a TP, FP8 or FP8-KV deployment ("" for the bf16 single-GPU default,
// so the committed single-GPU profiles stay byte for byte).
std::string deployment_note(const MeasuredDbDeployment& d) {
  std::string note;
  if (d.tensor_parallel > 1) {
    note += " Tensor parallel " + std::to_string(d.tensor_parallel) +
            ": per-GPU shards (heads, ffn, vocabulary-parallel LM head / " +
            std::to_string(d.tensor_parallel) +
            "), 2 all-reduces per layer + 1 for the embedding from comm_custom_allreduce.csv "
            "(graph rows up to the largest bucket, eager above); memory is the replica's; the "
            "LM head's logits gather is not in the database, so not in any step time.";
  }
  const bool kv_fp8 = d.kv_cache_dtype == "fp8";
  if (d.precision == "fp8") {
    note +=
        std::string(
            " Precision fp8: layer GEMMs from the per-tensor W8A8 rows (CutlassFP8ScaledMMLinear"
            "Kernel), LM head and attention bf16 (") +
        (kv_fp8 ? "fp8" : "bf16") + " KV cache), layer weights 1 byte each.";
  }
  if (kv_fp8) {
    note +=
        " KV cache fp8 (--kv-cache-dtype fp8): decode and prefill attention from the database's "
        "kv_cache_dtype fp8 rows (bf16 attention math over an fp8 cache), the KV-cache append "
        "writes 1 byte per element, kv_bytes_per_token is half the bf16 cache's.";
  }
  return note;
}

// Draft-model flags per family, as the analytic generator sets them (profiles/README.md).
DraftTimeModel draft_shape(DrafterFamily f) {
  DraftTimeModel m;
  m.sequential_in_gamma = f == DrafterFamily::kEagle3 || f == DrafterFamily::kDspark;
  m.tokens_scale_with_gamma = f != DrafterFamily::kMtp1;
  m.kv_read_per_pass = f == DrafterFamily::kEagle3;
  return m;
}

void fit_drafter(const StepComposer& composer, DrafterFamily family, MeasuredDbBuild& build,
                 Profile& p, std::set<std::string>& outside) {
  const int index = static_cast<int>(family);
  DraftTimeModel m = draft_shape(family);
  // Terms: the per-step constant, the per-pass constant (sequential families only: otherwise it
  // is the constant again), per drafted token, per context token read.
  std::vector<std::string> terms{"fixed_us"};
  if (m.sequential_in_gamma) terms.push_back("per_pass_us");
  terms.insert(terms.end(), {"per_token_us", "kv_read_us_per_context_token"});
  DesignMatrix d(terms);
  const std::vector<std::int64_t> gammas = family == DrafterFamily::kMtp1
                                               ? std::vector<std::int64_t>{1}
                                               : std::vector<std::int64_t>{1, 3, 5, 7, 11, 15};
  for (std::int64_t gamma : gammas) {
    const DrafterSpec spec{family, static_cast<int>(gamma), ""};
    for (std::int64_t r : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
      for (std::int64_t l : {512, 2048, 8192}) {
        const ComposedStep c = composer.draft(spec, r, l);
        outside.insert(c.outside_grid.begin(), c.outside_grid.end());
        const double g = static_cast<double>(gamma);
        std::vector<double> x{1.0};
        if (m.sequential_in_gamma) x.push_back(g);
        x.push_back(static_cast<double>(r) * (m.tokens_scale_with_gamma ? g : 1.0));
        x.push_back(static_cast<double>(r * l) * (m.kv_read_per_pass ? g : 1.0));
        d.add(x, c.total_ms * 1e3, "draft", 0,
              "R=" + std::to_string(r) + " gamma=" + std::to_string(gamma) +
                  " L=" + std::to_string(l));
      }
    }
  }
  const auto [train, held] = d.split_held_out(kHeldOutEvery, 1);
  const LinearFit fit = fit_least_squares(train);
  m.fixed_us = fit.coefficient("fixed_us");
  m.per_pass_us = m.sequential_in_gamma ? fit.coefficient("per_pass_us") : 0;
  m.per_token_ns = fit.coefficient("per_token_us") * 1e3;
  m.kv_read_ns_per_context_token = fit.coefficient("kv_read_us_per_context_token") * 1e3;
  p.draft[index] = m;
  build.draft_fit[index] = fit;
  build.draft_held_out[index] = error_report(fit, held);
}

// Weight bytes an FP8 checkpoint saves over bf16: one byte per layer-projection weight (the
// embedding, LM head and norms stay bf16).
double fp8_weight_bytes_saved(const DenseTargetShape& full) {
  const double h = static_cast<double>(full.hidden);
  const double q = static_cast<double>(full.q_heads * full.head_dim);
  const double kv = static_cast<double>(full.kv_heads * full.head_dim);
  const double ffn = static_cast<double>(full.ffn);
  const double per_layer = h * (q + 2 * kv) + q * h + 3 * h * ffn;
  return per_layer * static_cast<double>(full.layers);
}

}  // namespace

std::string gemm_dtype_for_precision(const std::string& precision) {
  if (precision == "bf16") return "bfloat16";
  if (precision == "fp8") return "fp8";
  throw InputError("--precision: '" + precision + "'; valid: bf16, fp8");
}

std::string database_kv_cache_dtype(const std::string& kv_cache_dtype) {
  if (kv_cache_dtype == "bf16") return "bfloat16";
  if (kv_cache_dtype == "fp8") return "fp8";
  throw InputError("--kv-cache-dtype: '" + kv_cache_dtype + "'; valid: bf16, fp8");
}

void require_layer_gemm_rows(const KernelDatabase& db, const DenseTargetShape& shard,
                             const std::string& precision) {
  const std::int64_t q = shard.q_heads * shard.head_dim;
  const std::int64_t kv = shard.kv_heads * shard.head_dim;
  const std::vector<std::tuple<const char*, std::int64_t, std::int64_t>> projections = {
      {"QKV", q + 2 * kv, shard.hidden},
      {"O", shard.hidden, q},
      {"gate/up", shard.ffn, shard.hidden},
      {"down", shard.hidden, shard.ffn}};
  for (const auto& [name, n, k] : projections) {
    try {
      db.gemm().latency(1, n, k, false);
    } catch (const InputError& e) {
      throw InputError("--precision " + precision + ": the database has no " + db.gemm().dtype() +
                       " GEMM rows for " + shard.name + "'s " + name + " projection at TP " +
                       std::to_string(shard.tensor_parallel) + ": " + e.what());
    }
  }
}

void set_fitted_decode_terms(VerifyTimeModel& v, const LinearFit& fit) {
  v.fixed_us = fit.coefficient("fixed_us");
  v.per_request_us = fit.coefficient("per_request_us");
  v.kv_read_ns_per_context_token = fit.coefficient("kv_read_us_per_context_token") * 1e3;
  v.attention_ns_per_pair = fit.coefficient("attention_us_per_pair") * 1e3;
}

FitErrorReport profile_vs_composition(const Profile& profile, const StepComposer& composer,
                                      const std::vector<FidelityPoint>& points) {
  const TimeModel model(profile);
  DesignMatrix d;
  std::vector<double> predicted;
  for (const FidelityPoint& p : points) {
    d.add({}, composer.step(p.shape).total_ms, p.region, 0, p.label());
    predicted.push_back(sim_time_to_ms(model.verify_time(batch_shape_of(p.shape))));
  }
  return error_report(predicted, d);
}

MeasuredDbBuild make_measured_db_profile(const std::string& database_dir, const JsonFile& shapes,
                                         const std::string& gpu, const std::string& target,
                                         const std::string& date, const std::string& git_sha,
                                         const MeasuredDbDeployment& deployment) {
  const DenseTargetShape full = read_dense_target(shapes, target);
  const std::string gemm_dtype = gemm_dtype_for_precision(deployment.precision);
  const std::string kv_dtype = database_kv_cache_dtype(deployment.kv_cache_dtype);
  // One GPU's shard: every GEMM and attention row below is that GPU's (step_composer.hpp).
  const DenseTargetShape shape = shard_for_tensor_parallel(full, deployment.tensor_parallel);
  const KernelDatabase db = KernelDatabase::load(
      database_dir, gpu, AttentionHeads{shape.q_heads, shape.kv_heads, shape.head_dim, kv_dtype},
      gemm_dtype, target);
  if (gemm_dtype != "bfloat16") require_layer_gemm_rows(db, shape, deployment.precision);
  MeasuredDbBuild build;
  // Memory, host overhead and the graph buckets: the analytic generator's (they are not
  // latencies; profiles/README.md explains each). Everything timed is replaced below, and stored
  // at the measured-db precision (the default).
  const std::string gpu_short = gpu.substr(0, gpu.find('-'));
  ProfileDraft draft;
  draft.profile = make_analytic_draft(shapes, gpu_short, target, date, git_sha).profile;
  Profile& p = draft.profile;
  // The replica is tensor_parallel GPUs: their HBM together holds the weights once and every
  // token's KV (each GPU its heads' share), so kv_capacity_tokens() is what each GPU holds, and
  // throughput per GPU divides by p.gpus.
  p.gpus = static_cast<int>(deployment.tensor_parallel);
  p.hbm_bytes *= static_cast<double>(deployment.tensor_parallel);
  if (deployment.precision == "fp8") p.weights_bytes -= fp8_weight_bytes_saved(full);
  // The analytic draft's KV is bf16; the cache's element size scales it (fp8: exactly half, so
  // twice the tokens fit in the same bytes).
  p.kv_bytes_per_token *= kv_cache_element_bytes(kv_dtype) / kv_cache_element_bytes("bfloat16");
  const MemoryBoundRates memory_rates = memory_bound_rates(shapes, gpu_short);
  const StepComposer composer(db, shape, p.verify.graph_buckets, memory_rates);
  std::set<std::string> outside;

  // Dense forward (layers only) and LM head, tabulated from the GEMM rows.
  VerifyTimeModel& v = p.verify;
  v.dense_tokens = table_tokens(v.graph_buckets);
  v.dense_us.clear();
  v.head_tokens = v.dense_tokens;
  v.head_us.clear();
  for (std::int64_t t : v.dense_tokens) {
    // GEMMs (+ TP all-reduces) and the memory-bound operations; LM head plus sampling.
    const KernelLatency layers = composer.dense_forward(t);
    const KernelLatency head = composer.head(t);
    outside.insert(layers.outside_grid.begin(), layers.outside_grid.end());
    outside.insert(head.outside_grid.begin(), head.outside_grid.end());
    v.dense_us.push_back(layers.ms * 1e3);
    v.head_us.push_back(head.ms * 1e3);
  }
  // Tables are measured latencies, not monotone everywhere (tile choices, run-to-run noise):
  // the least-squares non-decreasing fit (of the tables as stored) keeps "more tokens never cost
  // less".
  round_stored_terms(p, draft.precision);
  v.dense_us = nondecreasing_fit(v.dense_us);
  v.head_us = nondecreasing_fit(v.head_us);
  // Decode attention on the database's own (batch, step + 1) grid, times the layers: the
  // composition's verify_attention at W = 1, so between grid points the time model interpolates
  // as the reader does.
  v.decode_attention_context.clear();
  for (std::int64_t step : db.decode_attention().lengths()) {
    v.decode_attention_context.push_back(step + 1);
  }
  {
    std::set<std::int64_t> batches;
    for (std::int64_t step : db.decode_attention().lengths()) {
      for (std::int64_t b : db.decode_attention().batches_at(step)) batches.insert(b);
    }
    v.decode_attention_requests.assign(batches.begin(), batches.end());
  }
  v.decode_attention_us.clear();
  for (std::int64_t r : v.decode_attention_requests) {
    std::vector<double> row;
    for (std::int64_t c : v.decode_attention_context) {
      const KernelLatency k = composer.verify_attention(r, 1, c);
      outside.insert(k.outside_grid.begin(), k.outside_grid.end());
      row.push_back(k.ms * 1e3 * static_cast<double>(shape.layers));
    }
    v.decode_attention_us.push_back(std::move(row));
  }
  v.fixed_us = 0;
  v.kv_read_ns_per_context_token = 0;
  v.attention_ns_per_pair = 0;
  v.per_request_us = 0;
  round_stored_terms(p, draft.precision);  // the fit below sees the tables as stored

  // Attention and per-step terms: least squares on composed steps, tables as the known part.
  const std::vector<FidelityPoint> points = fidelity_points(p.kv_capacity_tokens());
  const TimeModel tables_only(p);
  DesignMatrix d({"fixed_us", "per_request_us", "kv_read_us_per_context_token",
                  "attention_us_per_pair", "prefill_chunk_us", "prefill_attention_us_per_pair",
                  "prefill_us_per_token"});
  for (const FidelityPoint& fp : points) {
    const ComposedStep c = composer.step(fp.shape);
    outside.insert(c.outside_grid.begin(), c.outside_grid.end());
    const BatchShape b = batch_shape_of(fp.shape);
    const double known_us = static_cast<double>(tables_only.verify_time(b)) * 1e-3;
    d.add(
        {1.0, static_cast<double>(b.decode_requests), static_cast<double>(b.decode_context_tokens),
         static_cast<double>(b.verify_attention_pairs), b.prefill_tokens > 0 ? 1.0 : 0.0,
         static_cast<double>(b.prefill_attention_pairs), static_cast<double>(b.prefill_tokens)},
        c.total_ms * 1e3, fp.region, known_us, fp.label());
  }
  const auto [train, held] = d.split_held_out(kHeldOutEvery, 1);
  build.verify_fit = fit_least_squares(train);
  const LinearFit& f = build.verify_fit;
  set_fitted_decode_terms(v, f);
  v.prefill_chunk_us = f.coefficient("prefill_chunk_us");
  v.prefill_attention_ns_per_pair = f.coefficient("prefill_attention_us_per_pair") * 1e3;
  v.prefill_token_ns = f.coefficient("prefill_us_per_token") * 1e3;

  for (int i = 0; i < kDrafterFamilyCount; ++i) {
    // A family the analytic generator gave no cost (no drafter for this target) gets none.
    if (p.draft[i]) fit_drafter(composer, static_cast<DrafterFamily>(i), build, p, outside);
  }

  const DatabaseIdentity& id = db.identity();
  p.provenance.source = "measured-db";
  p.provenance.gpu = gpu;
  p.provenance.tool = kMeasuredDbTool;
  p.provenance.database = id.repository;
  p.provenance.database_commit = id.commit;
  p.provenance.framework = id.framework;
  p.provenance.outside_grid.assign(outside.begin(), outside.end());
  p.provenance.notes =
      "Kernel latencies MEASURED BY A PUBLIC DATABASE (" + id.describe() +
      "), composed here: per layer QKV, O, 2 x gate/up, down bf16 GEMMs at the padded token "
      "count; LM head on verified rows only; FlashAttention-3 decode rows (verify: max of the "
      "decode row and the prefill table's per-pair rate); prefill chunks from the context rows. "
      "dense_us/head_us are tabulated from the GEMM rows, decode_attention_us from the decode "
      "rows; the operations the database does not time (RMSNorms + residual adds, q/k norms, "
      "RoPE, KV-cache append, SiLU*mul, embedding gather, final norm in dense_us; logits "
      "processing + sampling over the whole vocabulary per verified row in head_us) are composed "
      "from the bytes they move at " +
      format_fixed(memory_rates.bytes_per_us * 1e-6, 3) + " TB/s (0.95 x measured copy) plus " +
      format_fixed(memory_rates.kernel_us, 1) +
      " us per kernel (the roofline's); "
      "fixed/per-request/KV/pair/prefill-token terms and "
      "every drafter are least-squares fits to composed steps (fidelity: profiles/README.md). "
      "Not in any step time: the Markov head's softmax. Memory sizes and host_overhead_us (" +
      std::to_string(static_cast<int>(p.host_overhead_us)) +
      " us, assumed) are the analytic generator's. outside_grid lists every extrapolation." +
      deployment_note(deployment);
  build.profile = finish_profile(std::move(draft));
  const Profile& finished = build.profile;
  // Judge the rounded model, as saved, on both sets.
  build.verify_train = profile_vs_composition(finished, composer, [&] {
    std::vector<FidelityPoint> t;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (i % kHeldOutEvery != 1) t.push_back(points[i]);
    }
    return t;
  }());
  build.verify_held_out = profile_vs_composition(finished, composer, [&] {
    std::vector<FidelityPoint> t;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (i % kHeldOutEvery == 1) t.push_back(points[i]);
    }
    return t;
  }());

  return build;
}

}  // namespace sparksim
