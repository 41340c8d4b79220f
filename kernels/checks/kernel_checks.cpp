// The per-kernel comparisons of kernel_checks.hpp (random bf16-exact inputs, the CPU reference in
// double, the CUDA kernel through gpu_kernels.hpp, one metric per kernel) and the registry of
// every check; the whole-model ones are in model_checks.cpp.
#include "kernels/checks/kernel_checks.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/checks/ar_drafter_checks.hpp"
#include "kernels/checks/attention_checks.hpp"
#include "kernels/checks/check_support.hpp"
#include "kernels/checks/model_checks.hpp"
#include "kernels/gpu_kernels.hpp"
#include "kernels/kernel_tolerances.hpp"
#include "kernels/reference/ops_ref.hpp"
#include "kernels/reference/rejection_ref.hpp"

namespace sparksim::kernels {

namespace checks {

namespace {

namespace tol = tolerance;

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
  return compare_max_rel("kv_append", kv_values(gpu_cache), widen(kv_values(ref)),
                         tol::kKvAppendMaxRel);
}

// The fused kernel against the composition of the references: qk_norm_rope_ref per token, then
// the cache write. Queries and appended keys by kFusedQkNormRopeMaxRel; the whole cache, the
// appended keys taken from the kernel, exactly (values copied, nothing else touched).
CheckResult check_qk_norm_rope_kv(Inputs& in) {
  const int q_heads = 4;
  const KvCacheShape shape{2, 3, 600, 2, 128};
  const int hd = shape.head_dim;
  const int kv_width = shape.kv_heads * hd;
  const int row = (q_heads + 2 * shape.kv_heads) * hd;
  const HostKvCache before = random_cache(in, shape);
  const RaggedBatch batch = make_batch({0, 37, 520}, {1, 5, 8}, {1, 2, 0}, in, 10);
  const auto qkv = in.normal(static_cast<std::size_t>(batch.total_tokens()) * row, 3.0);
  const auto q_norm = in.normal(static_cast<std::size_t>(hd), 0.1, 1.0);
  const auto k_norm = in.normal(static_cast<std::size_t>(hd), 0.1, 1.0);
  const double eps = 1e-6;
  const double theta = 1e6;
  HostKvCache got_cache = before;
  const std::vector<float> got_q =
      gpu::qk_norm_rope_kv_append(qkv, q_norm, k_norm, batch, 1, q_heads, eps, theta, got_cache);
  std::vector<double> ref = widen(qkv);
  std::vector<double> want_q;
  std::vector<double> want_k;
  std::vector<float> got_k;
  HostKvCache want_cache = before;
  const std::vector<int> pos = batch.positions();
  const std::vector<int> req = batch.request_of_token();
  for (int t = 0; t < batch.total_tokens(); ++t) {
    double* r = ref.data() + static_cast<std::ptrdiff_t>(t) * row;
    qk_norm_rope_ref(r, q_norm.data(), k_norm.data(), q_heads, shape.kv_heads, hd, pos[t], eps,
                     theta);
    want_q.insert(want_q.end(), r, r + q_heads * hd);
    want_k.insert(want_k.end(), r + q_heads * hd, r + q_heads * hd + kv_width);
    const auto at = static_cast<std::ptrdiff_t>(shape.offset(1, batch.slots[req[t]], pos[t]));
    const auto* v = qkv.data() + static_cast<std::ptrdiff_t>(t) * row + q_heads * hd + kv_width;
    std::copy(v, v + kv_width, want_cache.v.begin() + at);
    const auto k = got_cache.k.begin() + at;
    got_k.insert(got_k.end(), k, k + kv_width);
    std::copy(k, k + kv_width, want_cache.k.begin() + at);
  }
  const CheckResult q =
      compare_max_rel("qk_norm_rope_kv", got_q, want_q, tol::kFusedQkNormRopeMaxRel);
  const CheckResult k =
      compare_max_rel("qk_norm_rope_kv", got_k, want_k, tol::kFusedQkNormRopeMaxRel);
  CheckResult r = q.error >= k.error ? q : k;
  r.detail = (q.error >= k.error ? "queries: " : "keys: ") + r.detail;
  const CheckResult rest = compare_max_rel("qk_norm_rope_kv", kv_values(got_cache),
                                           widen(kv_values(want_cache)), tol::kKvAppendMaxRel);
  if (!rest.passed) add_failure(r, "values or untouched cache entries: " + rest.detail);
  if (!q.passed || !k.passed) r.passed = false;
  return r;
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

CheckResult check_rejection(Inputs& in) {
  RejectionBatch b;
  b.vocab = 1000;
  b.cu_seqlens = {0};
  for (int drafts : {0, 1, 3, 7, 7, 4}) {
    b.cu_seqlens.push_back(b.cu_seqlens.back() + drafts + 1);
    for (int i = 0; i <= drafts; ++i) {
      const auto pt = in.distribution(b.vocab);
      b.p_target.insert(b.p_target.end(), pt.begin(), pt.end());
      if (i == drafts) break;
      // Drafts close to the target half the time, so that long accepted runs occur.
      std::vector<float> pd = in.distribution(b.vocab);
      if (in.uniform() < 0.5) pd = pt;
      std::vector<double> pdd = widen(pd);
      b.draft_tokens.push_back(sample_inverse_cdf_ref(pdd.data(), b.vocab, in.uniform()));
      b.p_draft.insert(b.p_draft.end(), pd.begin(), pd.end());
      b.accept_uniforms.push_back(in.uniform());
    }
    b.sample_uniforms.push_back(in.uniform());
  }
  return compare_rejection("rejection", b, rejection_verify_ref(b), gpu::rejection_verify(b));
}

}  // namespace

}  // namespace checks

const std::vector<std::string>& kernel_check_names() {
  static const std::vector<std::string> names = {"rms_norm",
                                                 "rope",
                                                 "kv_append",
                                                 "qk_norm_rope_kv",
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
                                                 "greedy_step",
                                                 "sampled_step"};
  static const std::vector<std::string> all = [] {
    std::vector<std::string> out = names;
    for (const auto& n : ar_drafter_check_names()) out.push_back(n);
    return out;
  }();
  return all;
}

CheckResult run_kernel_check(const std::string& name, std::uint64_t seed) {
  using namespace checks;
  Inputs in(seed);
  if (name == "rms_norm") return check_rms_norm(in);
  if (name == "rope") return check_rope(in);
  if (name == "kv_append") return check_kv_append(in);
  if (name == "qk_norm_rope_kv") return check_qk_norm_rope_kv(in);
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
  if (name == "sampled_step") return check_sampled_step(in, seed);
  for (const auto& n : ar_drafter_check_names()) {
    if (name == n) return run_ar_drafter_check(name, seed);
  }
  std::string valid;
  for (const auto& n : kernel_check_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown kernel check '" + name + "'; valid: " + valid);
}

}  // namespace sparksim::kernels
