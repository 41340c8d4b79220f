// The whole-model comparisons of kernel_checks.hpp: the verify forward, weights drawn on the
// device, the DSpark drafter and the engine step on the device, each against its CPU reference
// (verify_forward_ref, dspark_ref, step_ref) on the tiny shapes.
#include "kernels/checks/model_checks.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "kernels/gpu_kernels.hpp"
#include "kernels/kernel_tolerances.hpp"
#include "kernels/reference/dspark_ref.hpp"
#include "kernels/reference/step_ref.hpp"
#include "kernels/reference/verify_forward_ref.hpp"
#include "kernels/verify_rows.hpp"

namespace sparksim::kernels::checks {

namespace tol = tolerance;

CheckResult check_verify_forward(Inputs& in, std::uint64_t seed) {
  const TransformerShape shape = tiny_qwen3_shape();
  const TargetWeights w = make_random_target_weights(shape, seed, 0.1);
  const KvCacheShape cs{shape.layers, 3, 64, shape.kv_heads, shape.head_dim};
  HostKvCache cache = random_cache(in, cs);
  const RaggedBatch batch = make_batch({0, 11, 40}, {3, 1, 8}, {2, 0, 1}, in, shape.vocab);
  gpu::VerifyModel model(w, cs);
  model.upload_kv(cache);
  const std::vector<float> got = model.forward(batch);
  const std::vector<double> ref = verify_forward_ref(w, batch, cache);
  CheckResult all = compare_nmse("verify_forward", got, ref, tol::kVerifyForwardNmse);
  if (!all.passed) return all;
  // The LM head on gathered rows: request 0 as a prefill chunk (its last row only), the others
  // verified in full; the same rows of the reference. Repeated runs rewrite the same K/V.
  const std::vector<bool> prefill = {true, false, false};
  const std::vector<int> rows = logit_rows(batch, prefill);
  model.set_batch(batch, prefill);
  model.run();
  std::vector<double> ref_rows;
  const auto v = static_cast<std::size_t>(shape.vocab);
  for (int row : rows) {
    ref_rows.insert(ref_rows.end(), ref.begin() + row * v, ref.begin() + (row + 1) * v);
  }
  CheckResult gathered =
      compare_nmse("verify_forward", model.logits(), ref_rows, tol::kVerifyForwardNmse);
  gathered.detail = "gathered logit rows: " + gathered.detail;
  return gathered;
}

CheckResult check_device_weights(Inputs& in, std::uint64_t seed) {
  const TransformerShape shape = tiny_qwen3_shape();
  const KvCacheShape cs{shape.layers, 2, 32, shape.kv_heads, shape.head_dim};
  const HostKvCache cache = random_cache(in, cs);
  const RaggedBatch batch = make_batch({4, 0}, {3, 2}, {1, 0}, in, shape.vocab);
  gpu::VerifyModel uploaded(make_random_target_weights(shape, seed, 0.1), cs);
  gpu::VerifyModel drawn(shape, seed, 0.1, cs);
  uploaded.upload_kv(cache);
  drawn.upload_kv(cache);
  const std::vector<float> want = uploaded.forward(batch);
  CheckResult r = compare_max_rel("device_weights", drawn.forward(batch), widen(want),
                                  tol::kDeviceWeightsMaxRel);
  if (drawn.weight_bytes() != uploaded.weight_bytes()) add_failure(r, "weight bytes differ");
  return r;
}

// The drafter drawn on the device against the same weights drawn on the host and uploaded: one
// greedy round from the same cache must give the same base logits (same kernels, same bits).
CheckResult check_dspark_device_weights(Inputs& in, std::uint64_t seed) {
  const TransformerShape shape = tiny_qwen3_shape();
  const DraftShape ds = tiny_dspark_shape();
  const KvCacheShape target_cache{shape.layers, 2, 32, shape.kv_heads, shape.head_dim};
  const KvCacheShape cs{ds.layers, 2, 32, shape.kv_heads, shape.head_dim};
  const HostKvCache cache = random_cache(in, cs);
  const gpu::VerifyModel target(shape, seed, 0.1, target_cache);
  gpu::DsparkModel drawn(target, ds, seed + 1, 0.1, cs);
  gpu::DsparkModel uploaded(make_random_target_weights(shape, seed, 0.1),
                            make_random_draft_weights(shape, ds, seed + 1, 0.1), cs);
  drawn.upload_kv(cache);
  uploaded.upload_kv(cache);
  const std::vector<int> anchors = {in.integer(0, shape.vocab - 1), in.integer(0, shape.vocab - 1)};
  const gpu::GpuDraftResult want = uploaded.draft(anchors, {3, 9}, {1, 0}, 0.0, {}, true);
  const gpu::GpuDraftResult got = drawn.draft(anchors, {3, 9}, {1, 0}, 0.0, {}, true);
  CheckResult r = compare_max_rel("dspark_device_weights", got.base_logits, widen(want.base_logits),
                                  tol::kDeviceWeightsMaxRel);
  if (got.tokens != want.tokens) add_failure(r, "drafted tokens differ");
  return r;
}

CheckResult check_dspark_draft(Inputs& in, std::uint64_t seed) {
  const TransformerShape shape = tiny_qwen3_shape();
  const DraftShape ds = tiny_dspark_shape();
  const TargetWeights tw = make_random_target_weights(shape, seed, 0.1);
  const DraftWeights dw = make_random_draft_weights(shape, ds, seed, 0.1);
  const KvCacheShape cs{ds.layers, 3, 48, shape.kv_heads, shape.head_dim};
  HostKvCache cache = random_cache(in, cs);
  // Contexts of 5, 0 and 30 committed positions in slots 2, 0, 1.
  const std::vector<int> contexts = {5, 0, 30};
  const std::vector<int> slots = {2, 0, 1};
  const int row = static_cast<int>(ds.target_layer_ids.size()) * shape.hidden;
  RaggedBatch rows{{}, {0}, {}, {}};
  for (int r = 0; r < 3; ++r) {
    if (contexts[r] == 0) continue;
    rows.context_lens.push_back(0);
    rows.slots.push_back(slots[r]);
    rows.cu_seqlens.push_back(rows.cu_seqlens.back() + contexts[r]);
    rows.tokens.resize(static_cast<std::size_t>(rows.cu_seqlens.back()), 0);
  }
  const std::vector<float> states = in.normal(rows.tokens.size() * row, 2.0);
  const std::vector<double> states_d = widen(states);
  gpu::DsparkModel model(tw, dw, cs);
  model.upload_kv(cache);
  model.context_update(states, rows);
  for (int q = 0; q < rows.requests(); ++q) {
    dspark_context_update_ref(dw, shape, states_d.data() + rows.cu_seqlens[q] * row,
                              rows.cu_seqlens[q + 1] - rows.cu_seqlens[q], 0, rows.slots[q], cache);
  }
  CheckResult kv = compare_nmse("dspark_draft", kv_values(model.download_kv()),
                                widen(kv_values(cache)), tol::kDraftNmse);
  if (!kv.passed) {
    kv.detail = "context K/V: " + kv.detail;
    return kv;
  }

  const std::vector<int> anchors = {in.integer(0, shape.vocab - 1), in.integer(0, shape.vocab - 1),
                                    in.integer(0, shape.vocab - 1)};
  const gpu::GpuDraftResult got = model.draft(anchors, contexts, slots, 0.0, {}, true);
  const int gamma = ds.block_size;
  const auto v = static_cast<std::size_t>(shape.vocab);
  std::vector<double> want_base;
  std::vector<float> got_p;
  std::vector<double> want_p;
  double conf_err = 0.0;
  std::string token_problem;
  for (int r = 0; r < 3; ++r) {
    const DraftResult ref = dspark_draft_ref(dw, tw, cache, slots[r], contexts[r], anchors[r], {});
    want_base.insert(want_base.end(), ref.base_logits.begin(), ref.base_logits.end());
    for (int k = 0; k < gamma; ++k) {
      const std::size_t g = static_cast<std::size_t>(r) * gamma + k;
      got_p.insert(got_p.end(), got.p_draft.begin() + g * v, got.p_draft.begin() + (g + 1) * v);
      want_p.insert(want_p.end(), ref.p_draft.begin() + k * v, ref.p_draft.begin() + (k + 1) * v);
      conf_err = std::max(conf_err, std::abs(got.confidence[g] - ref.confidence[k]));
      if (got.tokens[g] == ref.tokens[k]) continue;
      // The reference's top-two logit gap is log(p1 / p2) of its temperature-1 distribution.
      std::vector<double> p(ref.p_draft.begin() + k * v, ref.p_draft.begin() + (k + 1) * v);
      std::partial_sort(p.begin(), p.begin() + 2, p.end(), std::greater<>());
      if (std::log(p[0] / p[1]) >= tol::kDraftTieMargin) {
        token_problem += "request " + std::to_string(r) + " position " + std::to_string(k) +
                         ": gpu token " + std::to_string(got.tokens[g]) + " ref " +
                         std::to_string(ref.tokens[k]) + "; ";
      }
      break;  // later positions depend on this token
    }
  }
  CheckResult base = compare_nmse("dspark_draft", got.base_logits, want_base, tol::kDraftNmse);
  CheckResult probs = compare_nmse("dspark_draft", got_p, want_p, tol::kDraftNmse);
  CheckResult r = base.error >= probs.error ? base : probs;
  r.detail = (base.error >= probs.error ? "base logits: " : "p_draft: ") + r.detail;
  if (conf_err > tol::kConfidenceMaxAbs) {
    add_failure(r, "confidence error " + std::to_string(conf_err));
  }
  if (!token_problem.empty()) add_failure(r, token_problem);
  return r;
}

// One greedy engine step on the device against dspark_greedy_step_ref from the same caches:
// accepted counts and committed tokens exact (greedy: integer decisions on argmaxes; the
// sharpened tiny weights keep top-two gaps far above the bf16 error), the target cache after
// the step by kVerifyForwardNmse, the draft cache's committed positions by kDraftNmse (positions
// past the new context hold scratch that differs by design: the device updates every verified
// row, the reference the committed ones).
CheckResult check_greedy_step(Inputs& in, std::uint64_t seed) {
  const TransformerShape shape = tiny_qwen3_shape();
  const DraftShape ds = tiny_dspark_shape();
  const TargetWeights tw = make_random_target_weights(shape, seed, 0.1);
  const DraftWeights dw = make_random_draft_weights(shape, ds, seed, 0.1);
  const KvCacheShape tcs{shape.layers, 3, 64, shape.kv_heads, shape.head_dim};
  const KvCacheShape dcs{ds.layers, 3, 64, shape.kv_heads, shape.head_dim};
  HostKvCache target_cache = random_cache(in, tcs);
  HostKvCache draft_cache = random_cache(in, dcs);
  std::vector<SpecRequest> want_requests = {{2, 5, in.integer(0, shape.vocab - 1)},
                                            {0, 17, in.integer(0, shape.vocab - 1)},
                                            {1, 30, in.integer(0, shape.vocab - 1)}};
  std::vector<SpecRequest> got_requests = want_requests;
  const std::vector<int> lengths = {ds.block_size, 2, 0};
  gpu::VerifyModel target(tw, tcs);
  gpu::DsparkModel drafter(tw, dw, dcs);
  target.upload_kv(target_cache);
  drafter.upload_kv(draft_cache);
  gpu::GreedyStepRunner runner(target, drafter, ds);
  const std::vector<StepOutcome> got = runner.step(got_requests, lengths);
  const std::vector<StepOutcome> want =
      dspark_greedy_step_ref(tw, dw, target_cache, draft_cache, want_requests, lengths);
  std::string problem;
  for (std::size_t r = 0; r < want.size(); ++r) {
    if (got[r].accepted != want[r].accepted || got[r].committed != want[r].committed) {
      problem += "request " + std::to_string(r) + ": accepted " + std::to_string(got[r].accepted) +
                 " (ref " + std::to_string(want[r].accepted) + "), last token " +
                 std::to_string(got[r].committed.back()) + " (ref " +
                 std::to_string(want[r].committed.back()) + "); ";
    }
  }
  const HostKvCache got_target = target.download_kv();
  CheckResult r = compare_nmse("greedy_step", kv_values(got_target), widen(kv_values(target_cache)),
                               tol::kVerifyForwardNmse);
  r.detail = "target cache: " + r.detail;
  // The draft caches below each request's new context.
  const HostKvCache got_draft = drafter.download_kv();
  std::vector<float> got_ctx;
  std::vector<double> want_ctx;
  const int kv_width = dcs.kv_heads * dcs.head_dim;
  for (int l = 0; l < dcs.layers; ++l) {
    for (const SpecRequest& q : want_requests) {
      const auto at = static_cast<std::size_t>(dcs.offset(l, q.slot, 0));
      const auto n = static_cast<std::size_t>(q.context_len) * kv_width;
      for (const auto* cache : {&got_draft.k, &got_draft.v}) {
        got_ctx.insert(got_ctx.end(), cache->begin() + at, cache->begin() + at + n);
      }
      for (const auto* cache : {&draft_cache.k, &draft_cache.v}) {
        want_ctx.insert(want_ctx.end(), cache->begin() + at, cache->begin() + at + n);
      }
    }
  }
  const CheckResult ctx = compare_nmse("greedy_step", got_ctx, want_ctx, tol::kDraftNmse);
  if (!ctx.passed) add_failure(r, "draft context: " + ctx.detail);
  if (!problem.empty()) add_failure(r, problem);
  return r;
}

}  // namespace sparksim::kernels::checks
