// The whole-model comparisons of kernel_checks.hpp: the verify forward, weights drawn on the
// device, the DSpark drafter and the engine step on the device, each against its CPU reference
// (verify_forward_ref, dspark_ref, step_ref) on the tiny shapes.
#include "kernels/checks/model_checks.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <tuple>

#include "kernels/gpu_kernels.hpp"
#include "kernels/kernel_tolerances.hpp"
#include "kernels/reference/dspark_ref.hpp"
#include "kernels/reference/ops_ref.hpp"
#include "kernels/reference/rejection_ref.hpp"
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

namespace {

// The setting of both engine-step checks: the tiny target and drafter, noisy caches, three
// requests in scattered slots verifying gamma, 2 and 0 drafts.
struct StepSetting {
  TransformerShape shape = tiny_qwen3_shape();
  DraftShape ds = tiny_dspark_shape();
  TargetWeights tw;
  DraftWeights dw;
  HostKvCache target_cache;
  HostKvCache draft_cache;
  std::vector<SpecRequest> requests;
  std::vector<int> lengths;

  StepSetting(Inputs& in, std::uint64_t seed)
      : tw(make_random_target_weights(shape, seed, 0.1)),
        dw(make_random_draft_weights(shape, ds, seed, 0.1)),
        target_cache(random_cache(in, {shape.layers, 3, 64, shape.kv_heads, shape.head_dim})),
        draft_cache(random_cache(in, {ds.layers, 3, 64, shape.kv_heads, shape.head_dim})),
        requests({{2, 5, in.integer(0, shape.vocab - 1)},
                  {0, 17, in.integer(0, shape.vocab - 1)},
                  {1, 30, in.integer(0, shape.vocab - 1)}}),
        lengths({ds.block_size, 2, 0}) {}

  // The verify batch of the requests (as they were before the step) with these drafts.
  RaggedBatch verify_batch(const std::vector<std::vector<int>>& drafts) const {
    RaggedBatch b;
    b.cu_seqlens = {0};
    for (std::size_t r = 0; r < requests.size(); ++r) {
      b.tokens.push_back(requests[r].anchor);
      b.tokens.insert(b.tokens.end(), drafts[r].begin(), drafts[r].end());
      b.cu_seqlens.push_back(static_cast<int>(b.tokens.size()));
      b.context_lens.push_back(requests[r].context_len);
      b.slots.push_back(requests[r].slot);
    }
    return b;
  }
};

// A device model with `cache` uploaded into it.
template <class Model>
Model& with_cache(Model& model, const HostKvCache& cache) {
  model.upload_kv(cache);
  return model;
}

// The setting's models on the device (caches uploaded) and the step runner over them.
struct DeviceStep {
  gpu::VerifyModel target;
  gpu::DsparkModel drafter;
  gpu::GreedyStepRunner runner;
  explicit DeviceStep(const StepSetting& s)
      : target(s.tw, s.target_cache.shape),
        drafter(s.tw, s.dw, s.draft_cache.shape),
        runner(with_cache(target, s.target_cache), with_cache(drafter, s.draft_cache), s.ds) {}
};

std::string outcome_text(std::size_t r, const StepOutcome& got, const StepOutcome& want) {
  return "request " + std::to_string(r) + ": accepted " + std::to_string(got.accepted) + " (ref " +
         std::to_string(want.accepted) + "), last token " + std::to_string(got.committed.back()) +
         " (ref " + std::to_string(want.committed.back()) + "); ";
}

}  // namespace

// One greedy engine step on the device against dspark_greedy_step_ref from the same caches:
// accepted counts and committed tokens exact unless one of the reference's decisions for that
// request is a near tie (top-two logit gap < kDraftTieMargin: a verified draft's argmax, or the
// target's argmax at a row up to the acceptance point), as in dspark_draft; bf16 forwards may
// pick the other token there. Then the caches of the requests held to exactness: the target's
// committed positions by kVerifyForwardNmse, the drafter's by kDraftNmse (positions past the new
// context hold scratch that differs by design: the device updates every verified row, the
// reference the committed ones).
CheckResult check_greedy_step(Inputs& in, std::uint64_t seed) {
  StepSetting s(in, seed);
  const int vocab = s.shape.vocab;
  const auto v = static_cast<std::size_t>(vocab);
  // The reference's decision margins, from its drafts and the target's logits over them.
  std::vector<std::vector<int>> drafts;
  std::vector<double> draft_gap(s.requests.size(), 1e300);
  for (std::size_t r = 0; r < s.requests.size(); ++r) {
    const SpecRequest& q = s.requests[r];
    const DraftResult d =
        dspark_draft_ref(s.dw, s.tw, s.draft_cache, q.slot, q.context_len, q.anchor, {});
    drafts.emplace_back(d.tokens.begin(), d.tokens.begin() + s.lengths[r]);
    for (int k = 0; k < s.lengths[r]; ++k) {
      std::vector<double> logp(d.p_draft.begin() + k * v, d.p_draft.begin() + (k + 1) * v);
      for (double& p : logp) p = std::log(p);
      draft_gap[r] = std::min(draft_gap[r], top_two_gap(logp.data(), vocab));
    }
  }
  const RaggedBatch batch = s.verify_batch(drafts);
  HostKvCache scratch = s.target_cache;
  const std::vector<double> logits = verify_forward_ref(s.tw, batch, scratch);

  DeviceStep dev(s);
  std::vector<SpecRequest> got_requests = s.requests;
  const std::vector<StepOutcome> got = dev.runner.step(got_requests, s.lengths);
  std::vector<SpecRequest> want_requests = s.requests;
  HostKvCache want_target = s.target_cache;
  HostKvCache want_draft = s.draft_cache;
  const std::vector<StepOutcome> want =
      dspark_greedy_step_ref(s.tw, s.dw, want_target, want_draft, want_requests, s.lengths);

  const HostKvCache got_target = dev.target.download_kv();
  const HostKvCache got_draft = dev.drafter.download_kv();
  std::string problem;
  std::string exempt;
  std::vector<float> got_kv;
  std::vector<float> want_kv;
  std::vector<float> got_ctx;
  std::vector<float> want_ctx;
  for (std::size_t r = 0; r < want.size(); ++r) {
    if (got[r].accepted != want[r].accepted || got[r].committed != want[r].committed) {
      double gap = draft_gap[r];
      for (int row = 0; row <= want[r].accepted; ++row) {
        gap = std::min(gap, top_two_gap(logits.data() + (batch.cu_seqlens[r] + row) * v, vocab));
      }
      if (gap >= tol::kDraftTieMargin) {
        problem += outcome_text(r, got[r], want[r]);
      } else {
        exempt += outcome_text(r, got[r], want[r]);
      }
      continue;  // its caches follow other tokens
    }
    const SpecRequest& q = want_requests[r];
    for (const auto& [got_cache, want_cache, got_out, want_out] :
         {std::tie(got_target, want_target, got_kv, want_kv),
          std::tie(got_draft, want_draft, got_ctx, want_ctx)}) {
      const std::vector<float> g = slot_prefix(got_cache, q.slot, q.context_len);
      const std::vector<float> w = slot_prefix(want_cache, q.slot, q.context_len);
      got_out.insert(got_out.end(), g.begin(), g.end());
      want_out.insert(want_out.end(), w.begin(), w.end());
    }
  }
  CheckResult r = compare_nmse("greedy_step", got_kv, widen(want_kv), tol::kVerifyForwardNmse);
  r.detail = "target cache: " + r.detail;
  const CheckResult ctx = compare_nmse("greedy_step", got_ctx, widen(want_ctx), tol::kDraftNmse);
  if (!ctx.passed) add_failure(r, "draft context: " + ctx.detail);
  if (!problem.empty()) add_failure(r, problem);
  if (!exempt.empty()) r.detail += "; near ties, not compared: " + exempt;
  return r;
}

// One sampled engine step on the device (rejection sampling at temperature 0.8, seeded uniforms)
// against the references. Its decisions, exactly: the rejection reference on the device's own
// p_target, p_draft and drafts must give the device's accepted counts and committed tokens
// (compare_rejection: counts exact, a token may differ only within kRejectionBoundaryMargin of a
// CDF boundary), and every drafted token must be the inverse-CDF draw of its own p_draft row at
// its uniform (the same margin). Its distributions: p_draft against dspark_draft_ref with the
// same uniforms (rows up to the first drafted token that differs) by kDraftNmse; p_target against
// softmax(verify_forward_ref logits / T) over the device's drafts by kTargetProbabilityNmse; the
// target cache's committed positions by kVerifyForwardNmse.
CheckResult check_sampled_step(Inputs& in, std::uint64_t seed) {
  StepSetting s(in, seed);
  const int gamma = s.ds.block_size;
  const int vocab = s.shape.vocab;
  const auto v = static_cast<std::size_t>(vocab);
  const auto r_count = static_cast<int>(s.requests.size());
  StepSampling sampling;
  sampling.temperature = 0.8;
  for (int i = 0; i < r_count * gamma; ++i) {
    sampling.draft_uniforms.push_back(in.uniform());
    sampling.accept_uniforms.push_back(in.uniform());
  }
  for (int r = 0; r < r_count; ++r) sampling.sample_uniforms.push_back(in.uniform());

  DeviceStep device(s);
  std::vector<SpecRequest> got_requests = s.requests;
  const std::vector<StepOutcome> got = device.runner.step(got_requests, s.lengths, sampling);
  const gpu::GreedyStepRunner::SampledInputs dev = device.runner.last_sampled_inputs();

  // Decisions on the device's own distributions.
  RejectionBatch b;
  b.vocab = vocab;
  b.cu_seqlens = {0};
  b.p_target = dev.p_target;
  b.sample_uniforms = sampling.sample_uniforms;
  RejectionResult got_decisions;
  std::vector<std::vector<int>> drafts(s.requests.size());
  std::string draw_problem;
  for (int r = 0; r < r_count; ++r) {
    b.cu_seqlens.push_back(b.cu_seqlens.back() + 1 + s.lengths[r]);
    for (int k = 0; k < gamma; ++k) {
      const auto row = static_cast<std::size_t>(r) * gamma + k;
      const std::vector<double> p(dev.p_draft.begin() + row * v,
                                  dev.p_draft.begin() + (row + 1) * v);
      const double u = sampling.draft_uniforms[row];
      if (sample_inverse_cdf_ref(p.data(), vocab, u) != dev.drafts[row] &&
          inverse_cdf_margin_ref(p.data(), vocab, u) >= tol::kRejectionBoundaryMargin) {
        draw_problem += "request " + std::to_string(r) + " draft " + std::to_string(k) +
                        " is not the draw of its p_draft; ";
      }
      if (k >= s.lengths[r]) continue;
      drafts[r].push_back(dev.drafts[row]);
      b.draft_tokens.push_back(dev.drafts[row]);
      b.p_draft.insert(b.p_draft.end(), p.begin(), p.end());
      b.accept_uniforms.push_back(sampling.accept_uniforms[row]);
    }
    got_decisions.accepted.push_back(got[r].accepted);
    got_decisions.committed.push_back(got[r].committed.back());
  }
  CheckResult r = compare_rejection("sampled_step", b, rejection_verify_ref(b), got_decisions);
  if (!draw_problem.empty()) add_failure(r, draw_problem);

  // Distributions and cache against the references.
  std::vector<float> got_pd;
  std::vector<double> want_pd;
  for (int q = 0; q < r_count; ++q) {
    const SpecRequest& req = s.requests[q];
    DraftOptions o;
    o.temperature = sampling.temperature;
    o.uniforms.assign(sampling.draft_uniforms.begin() + q * gamma,
                      sampling.draft_uniforms.begin() + (q + 1) * gamma);
    const DraftResult d =
        dspark_draft_ref(s.dw, s.tw, s.draft_cache, req.slot, req.context_len, req.anchor, o);
    for (int k = 0; k < gamma; ++k) {
      const auto row = static_cast<std::size_t>(q) * gamma + k;
      got_pd.insert(got_pd.end(), dev.p_draft.begin() + row * v,
                    dev.p_draft.begin() + (row + 1) * v);
      want_pd.insert(want_pd.end(), d.p_draft.begin() + k * v, d.p_draft.begin() + (k + 1) * v);
      if (d.tokens[k] != dev.drafts[row]) break;  // later rows follow another token
    }
  }
  const CheckResult pd = compare_nmse("sampled_step", got_pd, want_pd, tol::kDraftNmse);
  if (!pd.passed) add_failure(r, "p_draft: " + pd.detail);
  HostKvCache want_target = s.target_cache;
  const RaggedBatch batch = s.verify_batch(drafts);
  const std::vector<double> logits = verify_forward_ref(s.tw, batch, want_target);
  std::vector<double> want_pt(logits.size());
  for (int t = 0; t < batch.total_tokens(); ++t) {
    softmax_ref(logits.data() + t * v, vocab, sampling.temperature, want_pt.data() + t * v);
  }
  const CheckResult pt =
      compare_nmse("sampled_step", dev.p_target, want_pt, tol::kTargetProbabilityNmse);
  if (!pt.passed) add_failure(r, "p_target: " + pt.detail);
  const HostKvCache got_target = device.target.download_kv();
  std::vector<float> got_kv;
  std::vector<float> want_kv;
  for (const SpecRequest& q : got_requests) {
    const std::vector<float> g = slot_prefix(got_target, q.slot, q.context_len);
    const std::vector<float> w = slot_prefix(want_target, q.slot, q.context_len);
    got_kv.insert(got_kv.end(), g.begin(), g.end());
    want_kv.insert(want_kv.end(), w.begin(), w.end());
  }
  const CheckResult kv =
      compare_nmse("sampled_step", got_kv, widen(want_kv), tol::kVerifyForwardNmse);
  if (!kv.passed) add_failure(r, "target cache: " + kv.detail);
  return r;
}

}  // namespace sparksim::kernels::checks
