// The attention comparisons of attention_checks.hpp: every token and q head against attention_ref
// (causal within a request, GQA), through the ragged kernel, the planned split-K and tensor-core
// kernels, and the whole verify forward replayed in CUDA graphs with planned attention.
#include "kernels/checks/attention_checks.hpp"

#include <string>

#include "kernels/gpu_kernels.hpp"
#include "kernels/kernel_tolerances.hpp"
#include "kernels/reference/ops_ref.hpp"
#include "kernels/reference/verify_forward_ref.hpp"

namespace sparksim::kernels::checks {

namespace tol = tolerance;

namespace {

// attention_ref for every token and q head of a batch (GQA: head h reads KV head h / group), the
// tokens attending causally to their request's cache of `layer`.
std::vector<double> attention_reference(const std::vector<float>& q, const HostKvCache& cache,
                                        int layer, const RaggedBatch& batch, int q_heads) {
  const KvCacheShape& shape = cache.shape;
  const int q_width = q_heads * shape.head_dim;
  const int kv_width = shape.kv_heads * shape.head_dim;
  const std::vector<double> qd = widen(q);
  std::vector<double> ref(q.size());
  const std::vector<int> pos = batch.positions();
  const std::vector<int> req = batch.request_of_token();
  for (int t = 0; t < batch.total_tokens(); ++t) {
    for (int h = 0; h < q_heads; ++h) {
      const long long off = shape.offset(layer, batch.slots[req[t]], 0) +
                            static_cast<long long>(h / (q_heads / shape.kv_heads)) * shape.head_dim;
      const std::size_t at = static_cast<std::size_t>(t) * q_width + h * shape.head_dim;
      attention_ref(qd.data() + at, cache.k.data() + off, cache.v.data() + off, pos[t] + 1,
                    kv_width, shape.head_dim, ref.data() + at);
    }
  }
  return ref;
}

// The planned attention of `batch` (layer 1 of a two-layer cache) against the reference; fails
// when the plan's summary lacks `must_contain` or contains `must_not_contain` (the check would
// then not exercise the path it is named after).
CheckResult check_planned(Inputs& in, const std::string& name, const KvCacheShape& shape,
                          int q_heads, const RaggedBatch& batch, const AttentionPlanConfig& config,
                          int sm_count, const std::string& must_contain,
                          const std::string& must_not_contain, double tolerance) {
  const HostKvCache cache = random_cache(in, shape);
  const auto q =
      in.normal(static_cast<std::size_t>(batch.total_tokens()) * q_heads * shape.head_dim);
  std::string summary;
  const std::vector<float> got =
      gpu::planned_attention(q, cache, 1, batch, q_heads, config, sm_count, &summary);
  CheckResult r =
      compare_max_rel(name, got, attention_reference(q, cache, 1, batch, q_heads), tolerance);
  r.detail = "plan " + summary + (r.detail.empty() ? "" : "; " + r.detail);
  if (summary.find(must_contain) == std::string::npos ||
      (!must_not_contain.empty() && summary.find(must_not_contain) != std::string::npos)) {
    r.passed = false;
    r.detail += "; the plan does not take the path under test";
  }
  return r;
}

}  // namespace

CheckResult check_attention(Inputs& in) {
  const KvCacheShape shape{1, 3, 600, 2, 128};
  const int q_heads = 4;
  const HostKvCache cache = random_cache(in, shape);
  // A request with no history, a short one and a long one, in scattered slots.
  const RaggedBatch batch = make_batch({0, 37, 520}, {1, 5, 8}, {1, 2, 0}, in, 10);
  const auto q =
      in.normal(static_cast<std::size_t>(batch.total_tokens()) * q_heads * shape.head_dim);
  return compare_max_rel("attention", gpu::ragged_attention(q, cache, 0, batch, q_heads),
                         attention_reference(q, cache, 0, batch, q_heads), tol::kAttentionMaxRel);
}

// Split-K only: GQA group 4, ragged widths, no history, a 2k context (17 splits of 128 keys with
// a 64-key minimum, then 11 of 192 with the default), and a request (context 255, width 4) whose
// first row sees none of its last split ([256, 259) with 128-key splits).
CheckResult check_attention_split_k(Inputs& in) {
  const KvCacheShape shape{2, 5, 2060, 2, 128};
  const RaggedBatch batch =
      make_batch({0, 37, 2048, 255, 130}, {1, 5, 4, 4, 3}, {3, 0, 4, 1, 2}, in, 10);
  AttentionPlanConfig many;
  many.min_keys_per_split = 64;
  const CheckResult a = check_planned(in, "attention_split_k", shape, 8, batch, many, 132,
                                      "split-k", "prefill-tc", tol::kAttentionSplitKMaxRel);
  if (!a.passed) return a;
  return check_planned(in, "attention_split_k", shape, 8, batch, AttentionPlanConfig{}, 132,
                       "split-k", "prefill-tc", tol::kAttentionSplitKMaxRel);
}

// Tensor-core tiles beside split-K in one batch: chunks of 37 (148 rows: tiles of 64, 64, 20),
// 16 (one full tile) and 50 tokens (200 rows: 4 tiles, the last of 8 rows) at contexts 0, 100
// and 500, and a 2-token decode request on split-K.
CheckResult check_attention_prefill_tc(Inputs& in) {
  const KvCacheShape shape{2, 4, 600, 2, 128};
  const RaggedBatch batch = make_batch({0, 100, 30, 500}, {37, 16, 2, 50}, {2, 0, 3, 1}, in, 10);
  return check_planned(in, "attention_prefill_tc", shape, 8, batch, AttentionPlanConfig{}, 132,
                       "prefill-tc: 3 requests, 8 tiles", "", tol::kAttentionPrefillTcMaxRel);
}

// The planned attention inside CUDA graphs: three batches through one model graphed up to 24
// tokens (buckets 16, 24, then 16 again, so the second 16-token batch replays a graph captured
// with another batch's plan), each from the same cache, against the reference forward. Contexts
// past 256 keys give the long requests two splits; batch B holds a 20-token prefill chunk.
CheckResult check_verify_graph_planned(Inputs& in, std::uint64_t seed) {
  const TransformerShape shape = tiny_qwen3_shape();
  const TargetWeights w = make_random_target_weights(shape, seed, 0.1);
  const KvCacheShape cs{shape.layers, 4, 320, shape.kv_heads, shape.head_dim};
  const HostKvCache base = random_cache(in, cs);
  const std::vector<RaggedBatch> batches = {
      make_batch({0, 270, 40}, {3, 4, 4}, {2, 0, 1}, in, shape.vocab),
      make_batch({290, 5}, {2, 20}, {3, 1}, in, shape.vocab),
      make_batch({100, 260}, {7, 6}, {0, 2}, in, shape.vocab)};
  const std::vector<std::string> paths = {"split-k", "prefill-tc", "split-k"};
  gpu::VerifyModel model(w, cs);
  model.use_graphs(24);
  CheckResult worst{"verify_graph_planned", "nmse", 0.0, tol::kVerifyForwardNmse, true, ""};
  for (std::size_t i = 0; i < batches.size(); ++i) {
    model.upload_kv(base);
    model.set_batch(batches[i]);
    model.run();
    HostKvCache cache = base;
    const std::vector<double> ref = verify_forward_ref(w, batches[i], cache);
    CheckResult r =
        compare_nmse("verify_graph_planned", model.logits(), ref, tol::kVerifyForwardNmse);
    const std::string summary = model.attention_paths();
    r.detail = "batch " + std::to_string(i) + " (" + summary + ")" +
               (r.detail.empty() ? "" : ": " + r.detail);
    if (gpu::planned_attention_supported(shape.head_dim) &&
        summary.find(paths[i]) == std::string::npos) {
      r.passed = false;
      r.detail += "; the plan does not take the path under test";
    }
    if (!r.passed) return r;
    if (r.error >= worst.error) worst = r;
  }
  return worst;
}

}  // namespace sparksim::kernels::checks
