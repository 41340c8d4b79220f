// The comparisons of kernel_checks.hpp: random bf16-exact inputs, the CPU reference in double,
// the CUDA kernel through gpu_kernels.hpp, one metric per kernel.
#include "kernels/checks/kernel_checks.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "common/rng.hpp"
#include "kernels/bf16.hpp"
#include "kernels/checks/ar_drafter_checks.hpp"
#include "kernels/checks/attention_checks.hpp"
#include "kernels/checks/check_inputs.hpp"
#include "kernels/gpu_kernels.hpp"
#include "kernels/kernel_tolerances.hpp"
#include "kernels/reference/dspark_ref.hpp"
#include "kernels/reference/ops_ref.hpp"
#include "kernels/reference/rejection_ref.hpp"
#include "kernels/reference/step_ref.hpp"
#include "kernels/reference/verify_forward_ref.hpp"
#include "kernels/verify_rows.hpp"

namespace sparksim::kernels {

namespace {

namespace tol = tolerance;
using Inputs = CheckInputs;

CheckResult check_rms_norm(Inputs& in) {
  const int rows = 7;
  const int n = 1000;  // more than one pass of the 256-thread block
  const auto x = in.normal(static_cast<std::size_t>(rows) * n, 3.0);
  const auto gain = in.normal(n, 0.1, 1.0);
  std::vector<double> ref(x.size());
  const std::vector<double> xd = widen(x);
  for (int r = 0; r < rows; ++r) {
    rms_norm_ref(xd.data() + r * n, gain.data(), n, 1e-6, ref.data() + r * n);
  }
  return compare_max_rel("rms_norm", gpu::rms_norm(x, gain, rows, n, 1e-6), ref,
                         tol::kRmsNormMaxRel);
}

CheckResult check_rope(Inputs& in) {
  const int heads = 3;
  const int hd = 128;
  std::vector<int> positions;
  for (int t = 0; t < 5; ++t) positions.push_back(in.integer(0, 8191));
  const auto x = in.normal(positions.size() * heads * hd);
  std::vector<double> ref = widen(x);
  for (std::size_t t = 0; t < positions.size(); ++t) {
    for (int h = 0; h < heads; ++h) {
      rope_ref(ref.data() + (t * heads + h) * hd, hd, positions[t], 1e6);
    }
  }
  return compare_max_rel("rope", gpu::rope(x, positions, heads, hd, 1e6), ref, tol::kRopeMaxRel);
}

CheckResult check_kv_append(Inputs& in) {
  const KvCacheShape shape{2, 3, 16, 2, 32};
  const HostKvCache before = random_cache(in, shape);
  const RaggedBatch batch = make_batch({3, 7}, {2, 4}, {2, 0}, in, 10);
  const int kv_width = shape.kv_heads * shape.head_dim;
  const auto k_new = in.normal(static_cast<std::size_t>(batch.total_tokens()) * kv_width);
  const auto v_new = in.normal(k_new.size());
  HostKvCache ref = before;
  const std::vector<int> pos = batch.positions();
  const std::vector<int> req = batch.request_of_token();
  for (int t = 0; t < batch.total_tokens(); ++t) {
    const long long off = shape.offset(1, batch.slots[req[t]], pos[t]);
    for (int i = 0; i < kv_width; ++i) {
      ref.k[off + i] = k_new[static_cast<std::size_t>(t) * kv_width + i];
      ref.v[off + i] = v_new[static_cast<std::size_t>(t) * kv_width + i];
    }
  }
  HostKvCache gpu_cache = before;
  gpu::kv_append(k_new, v_new, batch, 1, gpu_cache);
  std::vector<float> got = gpu_cache.k;
  got.insert(got.end(), gpu_cache.v.begin(), gpu_cache.v.end());
  std::vector<double> want = widen(ref.k);
  want.insert(want.end(), ref.v.begin(), ref.v.end());
  return compare_max_rel("kv_append", got, want, tol::kKvAppendMaxRel);
}

CheckResult check_swiglu(Inputs& in) {
  const int tokens = 6;
  const int ffn = 300;
  const auto gu = in.normal(2 * static_cast<std::size_t>(tokens) * ffn, 2.0);
  const std::vector<double> gd = widen(gu);
  std::vector<double> ref(static_cast<std::size_t>(tokens) * ffn);
  for (int t = 0; t < tokens; ++t) {
    swiglu_ref(gd.data() + 2 * t * ffn, gd.data() + 2 * t * ffn + ffn, ffn, ref.data() + t * ffn);
  }
  return compare_max_rel("swiglu", gpu::swiglu(gu, tokens, ffn), ref, tol::kSwigluMaxRel);
}

CheckResult check_gemm(Inputs& in) {
  const int m = 9;
  const int n = 130;
  const int k = 520;
  const auto a = in.normal(static_cast<std::size_t>(m) * k);
  const auto w = in.normal(static_cast<std::size_t>(n) * k, 0.05);
  const std::vector<double> ad = widen(a);
  std::vector<double> ref(static_cast<std::size_t>(m) * n);
  for (int i = 0; i < m; ++i) matvec_ref(w.data(), ad.data() + i * k, n, k, ref.data() + i * n);
  return compare_max_rel("gemm", gpu::gemm_bf16(a, w, m, n, k), ref, tol::kGemmMaxRel);
}

CheckResult check_softmax(Inputs& in) {
  const int rows = 3;
  const int n = 5000;
  const auto logits = in.normal(static_cast<std::size_t>(rows) * n, 3.0);
  const std::vector<double> ld = widen(logits);
  std::vector<double> ref(ld.size());
  for (int r = 0; r < rows; ++r) softmax_ref(ld.data() + r * n, n, 0.7, ref.data() + r * n);
  return compare_nmse("softmax", gpu::softmax(logits, rows, n, 0.7), ref, tol::kSoftmaxNmse);
}

// Random distributions: softmax of N(0, 2) logits, so that some tokens dominate.
std::vector<float> random_distribution(Inputs& in, int vocab) {
  const std::vector<double> logits = widen(in.normal(static_cast<std::size_t>(vocab), 2.0));
  std::vector<double> p(logits.size());
  softmax_ref(logits.data(), vocab, 1.0, p.data());
  return {p.begin(), p.end()};
}

CheckResult check_rejection(Inputs& in) {
  RejectionBatch b;
  b.vocab = 1000;
  b.cu_seqlens = {0};
  for (int drafts : {0, 1, 3, 7, 7, 4}) {
    b.cu_seqlens.push_back(b.cu_seqlens.back() + drafts + 1);
    for (int i = 0; i <= drafts; ++i) {
      const auto pt = random_distribution(in, b.vocab);
      b.p_target.insert(b.p_target.end(), pt.begin(), pt.end());
      if (i == drafts) break;
      // Drafts close to the target half the time, so that long accepted runs occur.
      std::vector<float> pd = random_distribution(in, b.vocab);
      if (in.uniform() < 0.5) pd = pt;
      std::vector<double> pdd = widen(pd);
      b.draft_tokens.push_back(sample_inverse_cdf_ref(pdd.data(), b.vocab, in.uniform()));
      b.p_draft.insert(b.p_draft.end(), pd.begin(), pd.end());
      b.accept_uniforms.push_back(in.uniform());
    }
    b.sample_uniforms.push_back(in.uniform());
  }
  const RejectionResult ref = rejection_verify_ref(b);
  const RejectionResult got = gpu::rejection_verify(b);
  CheckResult r{"rejection", "mismatches", 0.0, 0.0, true, ""};
  for (int q = 0; q < b.requests(); ++q) {
    bool ok = got.accepted[q] == ref.accepted[q];
    if (ok && got.committed[q] != ref.committed[q]) {
      // Allowed only at a CDF boundary (kRejectionBoundaryMargin).
      const int row = b.cu_seqlens[q] + ref.accepted[q];
      const int drafts = b.cu_seqlens[q + 1] - b.cu_seqlens[q] - 1;
      std::vector<double> w(static_cast<std::size_t>(b.vocab));
      for (int j = 0; j < b.vocab; ++j) {
        const double pt = b.p_target[static_cast<std::size_t>(row) * b.vocab + j];
        const double pd =
            ref.accepted[q] < drafts
                ? b.p_draft[static_cast<std::size_t>(b.cu_seqlens[q] - q + ref.accepted[q]) *
                                b.vocab +
                            j]
                : 0.0;
        w[j] = std::max(0.0, pt - pd);
      }
      ok = inverse_cdf_margin_ref(w.data(), b.vocab, b.sample_uniforms[q]) <
           tol::kRejectionBoundaryMargin;
    }
    if (!ok) {
      r.error += 1.0;
      r.detail += "request " + std::to_string(q) + ": gpu (" + std::to_string(got.accepted[q]) +
                  ", " + std::to_string(got.committed[q]) + ") ref (" +
                  std::to_string(ref.accepted[q]) + ", " + std::to_string(ref.committed[q]) + "); ";
    }
  }
  r.passed = r.error == 0.0;
  return r;
}

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
  if (drawn.weight_bytes() != uploaded.weight_bytes()) {
    r.passed = false;
    r.detail += "; weight bytes differ";
  }
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
  if (got.tokens != want.tokens) {
    r.passed = false;
    r.detail += "; drafted tokens differ";
  }
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
  const HostKvCache gpu_cache = model.download_kv();
  std::vector<float> got_kv = gpu_cache.k;
  got_kv.insert(got_kv.end(), gpu_cache.v.begin(), gpu_cache.v.end());
  std::vector<double> want_kv = widen(cache.k);
  want_kv.insert(want_kv.end(), cache.v.begin(), cache.v.end());
  CheckResult kv = compare_nmse("dspark_draft", got_kv, want_kv, tol::kDraftNmse);
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
    r.passed = false;
    r.detail += "; confidence error " + std::to_string(conf_err);
  }
  if (!token_problem.empty()) {
    r.passed = false;
    r.detail += "; " + token_problem;
  }
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
  std::vector<float> got_kv = got_target.k;
  got_kv.insert(got_kv.end(), got_target.v.begin(), got_target.v.end());
  std::vector<double> want_kv = widen(target_cache.k);
  want_kv.insert(want_kv.end(), target_cache.v.begin(), target_cache.v.end());
  CheckResult r = compare_nmse("greedy_step", got_kv, want_kv, tol::kVerifyForwardNmse);
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
  if (!ctx.passed) {
    r.passed = false;
    r.detail += "; draft context: " + ctx.detail;
  }
  if (!problem.empty()) {
    r.passed = false;
    r.detail += "; " + problem;
  }
  return r;
}

}  // namespace

const std::vector<std::string>& kernel_check_names() {
  static const std::vector<std::string> names = {"rms_norm",
                                                 "rope",
                                                 "kv_append",
                                                 "attention",
                                                 "attention_split_k",
                                                 "attention_prefill_tc",
                                                 "swiglu",
                                                 "gemm",
                                                 "softmax",
                                                 "rejection",
                                                 "verify_forward",
                                                 "verify_graph_planned",
                                                 "dspark_draft",
                                                 "device_weights",
                                                 "dspark_device_weights",
                                                 "greedy_step"};
  static const std::vector<std::string> all = [] {
    std::vector<std::string> out = names;
    for (const auto& n : ar_drafter_check_names()) out.push_back(n);
    return out;
  }();
  return all;
}

CheckResult run_kernel_check(const std::string& name, std::uint64_t seed) {
  Inputs in(seed);
  if (name == "rms_norm") return check_rms_norm(in);
  if (name == "rope") return check_rope(in);
  if (name == "kv_append") return check_kv_append(in);
  if (name == "attention") return check_attention(in);
  if (name == "attention_split_k") return check_attention_split_k(in);
  if (name == "attention_prefill_tc") return check_attention_prefill_tc(in);
  if (name == "swiglu") return check_swiglu(in);
  if (name == "gemm") return check_gemm(in);
  if (name == "softmax") return check_softmax(in);
  if (name == "rejection") return check_rejection(in);
  if (name == "verify_forward") return check_verify_forward(in, seed);
  if (name == "verify_graph_planned") return check_verify_graph_planned(in, seed);
  if (name == "dspark_draft") return check_dspark_draft(in, seed);
  if (name == "device_weights") return check_device_weights(in, seed);
  if (name == "dspark_device_weights") return check_dspark_device_weights(in, seed);
  if (name == "greedy_step") return check_greedy_step(in, seed);
  for (const auto& n : ar_drafter_check_names()) {
    if (name == n) return run_ar_drafter_check(name, seed);
  }
  std::string valid;
  for (const auto& n : kernel_check_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown kernel check '" + name + "'; valid: " + valid);
}

}  // namespace sparksim::kernels
